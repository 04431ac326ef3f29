// Vitest global setup of the projects with browser tests (the docs page, the public and hosted pages): makes sure
// headless Chromium is installed, so each project runs on its own (`npx vitest run --project api-postgres`).
// CI runs as root on Debian, where a missing browser is installed with apt-get, once per machine.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH } from '../support/chromium.js';

export default function ensureChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${CHROMIUM_PATH} is missing: install the Debian package as root: apt-get install -y chromium`);
  }
  console.log(`[setup] ${CHROMIUM_PATH} is missing: installing it (apt-get update && apt-get install -y chromium), once per machine`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Wait for another apt-get (another job on the same machine) instead of failing on its lock.
  const waitForLock = ['-o', 'DPkg::Lock::Timeout=600'];
  execFileSync('apt-get', [...waitForLock, 'update'], { stdio: 'inherit', env });
  execFileSync('apt-get', [...waitForLock, 'install', '-y', 'chromium'], { stdio: 'inherit', env });
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`apt-get install chromium did not provide ${CHROMIUM_PATH}`);
  console.log(`[setup] installed ${execFileSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8' }).trim()}`);
}
