/**
 * Prism as a child process, mocking the mock's document (written here from the bundled document that the vitest
 * global setup writes, exactly as `npm run mock` does) on a free port of 127.0.0.1. Each Prism mocks a copy of its
 * own in a temporary folder: Prism restarts whenever the file it mocks changes, and while it reloads (seconds) it
 * refuses connections, so one shared dist/openapi.mock.yaml, rewritten by every other test file that starts a mock,
 * made the running mocks of other workers refuse requests mid-test.
 * `--errors` makes a request or a mocked response that breaks the contract come back as a 500 problem instead of
 * a mere `sl-violations` header, so no contract test passes by accident.
 * The paths carry the `/v1` base path, as in production: `url` is what the typed client takes as `baseUrl`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeMockDocument } from '../../../src/cli/mock-bundle.js';
import { freePort } from '../../support/ports.js';

export { freePort };

const root = path.resolve(import.meta.dirname, '../../..');
// The project's own Prism (pinned in package.json), never one from PATH or a download.
const prismBin = path.join(root, 'node_modules/.bin/prism');

export interface RunningPrism {
  /** `http://127.0.0.1:<port>/v1`: the mock's base URL, shaped like production's. */
  url: string;
  /** Everything Prism printed so far, for failure messages. */
  output(): string;
  /** Stops Prism and every process it started; safe to call twice. */
  stop(): Promise<void>;
}

export async function startPrism(options: { startTimeoutMs?: number } = {}): Promise<RunningPrism> {
  const { startTimeoutMs = 90_000 } = options;
  const directory = mkdtempSync(path.join(tmpdir(), 'prism-mock-'));
  const documentPath = path.join(directory, 'openapi.mock.yaml');
  const prefix = writeMockDocument(documentPath);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${prefix}`;
  // detached: Prism gets its own process group, so stopping it kills the group and leaves nothing behind.
  const child = spawn(prismBin, ['mock', documentPath, '--host', '127.0.0.1', '--port', String(port), '--errors'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // If the test process dies before afterAll, the group still goes with it.
  const killOnExit = () => {
    killGroup(child, 'SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(directory, { recursive: true, force: true });
  };

  try {
    await waitUntilAnswering(url, exited, startTimeoutMs);
  } catch (error) {
    await stop();
    throw new Error(`Prism did not start on ${url}: ${(error as Error).message}\n--- Prism output ---\n${output}`);
  }
  return { url, output: () => output, stop };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  // Only while Prism itself runs: once it has exited, its pid may lead another process group (pids wrap).
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Any HTTP answer means Prism has loaded the document and listens; an exit or the deadline means it never will. */
async function waitUntilAnswering(url: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`it exited with code ${exitCode}`);
    try {
      const response = await fetch(`${url}/me`, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`no answer within ${timeoutMs} ms`);
}
