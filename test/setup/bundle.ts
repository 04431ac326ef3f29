// Vitest global setup: `npm run bundle` once, so that the app and the contract tests read the current bundled
// document (dist/openapi.yaml, dist/openapi.json).
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export default function bundle(): void {
  const result = spawnSync('npm', ['run', 'bundle'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run bundle failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
}
