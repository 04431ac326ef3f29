/**
 * Runs the breaking-change gate (src/cli/breaking.ts) as `npm run breaking` does, in a child process: its exit
 * code and its output (stdout and stderr, without colours). Optic is stopped before the calling test times out.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const root = path.resolve(import.meta.dirname, '../..');

export function runBreakingGate(args: readonly string[], timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/breaking.ts', ...args], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: '0' },
      timeout: timeoutMs,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: stripVTControlCharacters(output) }));
  });
}
