/**
 * `npm run admin -- <args>` for the tests. `runAdminInProcess` runs the command in the test's own process (`runAdmin`,
 * which the script runs too), with the environment the script would have: starting the script costs seconds of CPU
 * each time, most of it loading TypeScript. `runAdminProcess` starts the script itself, for the cases about the
 * process: its command line, its output streams and its exit code.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { runAdmin } from '../../src/cli/admin.js';

const execute = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

/** What a run printed, and its exit code. */
export interface AdminOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command in this process, with the test process's environment and `env` over it, as the script would see it. */
export async function runAdminInProcess(args: string[], env: Record<string, string> = {}): Promise<AdminOutcome> {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, {
    env: { ...process.env, ...env },
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

/** `node --import tsx src/cli/admin.ts <args>` (what `npm run admin` runs), with `env` over the test process's. */
export async function runAdminProcess(args: string[], env: Record<string, string> = {}): Promise<AdminOutcome> {
  try {
    const { stdout, stderr } = await execute(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as AdminOutcome;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
