/**
 * The command line as an operator meets it: `npm run admin`, its usage and help, the configuration it prints, and
 * the server on a port that is taken. `npm start -- --help` is tested on the compiled copy of test/e2e/start.test.ts,
 * which builds the server anyway: here it would compile it once more. What the admin commands answer is checked in
 * this process (`runAdmin`, which the script runs); what is about the process (the usage and exit code without a
 * command or with an unknown one, `--help`, a bootstrap) runs the script itself.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runAdminInProcess, runAdminProcess } from '../support/admin.js';

const execute = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'form-funnel-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(file: string, args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  try {
    const { stdout, stderr } = await execute(file, args, { cwd: root, env: { ...process.env, DATA_DIR: dataDir, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as Outcome;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** `npm run admin -- <args>` on this file's DATA_DIR, in this process. */
const admin = (args: string[], env: Record<string, string> = {}) => runAdminInProcess(args, { DATA_DIR: dataDir, ...env });
/** The same, as the script's own process. */
const adminProcess = (args: string[], env: Record<string, string> = {}) => runAdminProcess(args, { DATA_DIR: dataDir, ...env });
const server = (args: string[], env?: Record<string, string>) => run(process.execPath, ['--import', 'tsx', 'src/server.ts', ...args], env);
const stackTrace = /\n\s+at /;

describe.concurrent('npm run admin', () => {
  it.each([
    ['bootstrap', '--workspace <name>'],
    ['sign-in-link', '--email <email of an account or member>'],
    ['oauth-client', '--redirect-uri <uri>'],
    ['oauth-authorize', '--code-challenge <S256 challenge>'],
  ])('when `%s --help` is run, then that command’s usage is printed and it exits 0', async (command, option) => {
    const outcome = await admin([command, '--help']);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(new RegExp(`^Usage: npm run admin -- ${command} `));
    expect(outcome.stdout).toContain(option);
    expect(outcome.stderr).not.toMatch(stackTrace);
  });

  it('when no command is given, then the usage of every command goes to stderr and it exits non-zero', async () => {
    const outcome = await adminProcess([]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^No command given\.\nUsage:\n/);
    for (const command of ['bootstrap', 'oauth-client', 'oauth-authorize'])
      expect(outcome.stderr).toContain(`npm run admin -- ${command} `);
    expect(outcome.stdout).toBe('');
  });

  it('when the command is unknown, then it is named with the usage and it exits 2', async () => {
    const outcome = await adminProcess(['bootstrapp']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^Unknown command: bootstrapp\.\nUsage:/);
  });

  it('when only --help is given, then the usage goes to stdout and it exits 0', async () => {
    const outcome = await adminProcess(['--help']);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('npm run admin -- bootstrap ');
  });

  it('when bootstrap gets an unknown option, then one message and its usage, no stack trace', async () => {
    const outcome = await admin(['bootstrap', '--workspace', 'Acme', '--colour']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain("Unknown option '--colour'");
    expect(outcome.stderr).toContain('Usage: npm run admin -- bootstrap ');
    expect(outcome.stderr).not.toMatch(stackTrace);
  });

  it('when the configuration is invalid, then its one-line message is printed, no stack trace', async () => {
    const outcome = await admin(['bootstrap', '--workspace', 'Acme'], { PORT: 'eighty' });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe('PORT must be a whole number from 0 to 65535.\n');
  });

  it('when bootstrap runs, then it prints the configured DATA_DIR and a curl hint on the configured PORT', async () => {
    const outcome = await adminProcess(['bootstrap', '--workspace', 'Acme'], { PORT: '9443' });
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain(`in ${join(dataDir, 'form-funnel.db')} (DATA_DIR=${dataDir})`);
    expect(outcome.stdout).toContain('curl -k https://localhost:9443/v1/me -H "Authorization: Bearer <key>"   (PORT=9443)');
    expect(outcome.stdout).toContain('Then open the dashboard: https://localhost:9443/dashboard');
    expect(outcome.stdout).not.toContain('8443');
  });

  it('when bootstrap --json runs, then beside the keys it gives the base URL of the server on the configured PORT', async () => {
    const outcome = await admin(['bootstrap', '--workspace', 'Acme', '--json'], { PORT: '9443' });
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout)).toEqual({
      workspace_id: expect.stringMatching(/^ws_/),
      live_admin_key: expect.stringMatching(/^svc_live_/),
      test_admin_key: expect.stringMatching(/^svc_test_/),
      base_url: 'https://localhost:9443/v1',
      sign_in_url: expect.stringMatching(/^https:\/\/localhost:9443\/sign-in\/link\?token=[A-Za-z0-9_-]{43}$/),
      sign_in_expires_at: expect.stringMatching(/Z$/),
    });
    const { sign_in_expires_at } = JSON.parse(outcome.stdout) as { sign_in_expires_at: string };
    // 15 minutes from now, give or take the command's own run.
    expect(Date.parse(sign_in_expires_at) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(Date.parse(sign_in_expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
  });

  it('when bootstrap runs with --email, then the sign-in link is for that admin, and sign-in-link gives them a new one', async () => {
    const text = await admin(['bootstrap', '--workspace', 'Acme', '--email', 'Ana@Acme.Test'], { PORT: '9443' });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /Sign in as its admin, ana@acme\.test, within 15 minutes[^\n]*\n {2}https:\/\/localhost:9443\/sign-in\/link\?token=/,
    );
    const again = await admin(['sign-in-link', '--email', 'ana@acme.test', '--json'], { PORT: '9443' });
    expect(again.code).toBe(0);
    const link = JSON.parse(again.stdout) as { email: string; sign_in_url: string };
    expect(link.email).toBe('ana@acme.test');
    expect(text.stdout).not.toContain(link.sign_in_url);
  });

  it('when bootstrap gets an --email the API would refuse, then its usage and 2, and nothing is made', async () => {
    const outcome = await admin(['bootstrap', '--workspace', 'Acme', '--email', 'owner@localhost']);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(
      /^--email owner@localhost is not an email address the API accepts\.\nUsage: npm run admin -- bootstrap /,
    );
    expect(outcome.stdout).toBe('');
  });

  it('when sign-in-link names nobody the service knows, then it says so and exits 1; without --email, its usage and 2', async () => {
    const stranger = await admin(['sign-in-link', '--email', 'nobody@else.test']);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toBe('No account or member has the email nobody@else.test: invite them from a workspace first.\n');
    expect(stranger.stdout).toBe('');
    const missing = await admin(['sign-in-link']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^--email is required\.\nUsage: npm run admin -- sign-in-link /);
  });

  it('when PUBLIC_BASE_URL ends in a slash, then bootstrap prints it with one /v1 path, as text and as JSON', async () => {
    const env = { PORT: '9443', PUBLIC_BASE_URL: 'https://api.acme.test/' };
    const text = await admin(['bootstrap', '--workspace', 'Acme'], env);
    expect(text.stdout).toContain('curl -k https://api.acme.test/v1/me -H "Authorization: Bearer <key>"');
    const json = await admin(['bootstrap', '--workspace', 'Acme', '--json'], env);
    expect(JSON.parse(json.stdout).base_url).toBe('https://api.acme.test/v1');
  });

  it('when oauth-client runs, then it prints the configured DATA_DIR and the token endpoint on PUBLIC_BASE_URL', async () => {
    const outcome = await admin(['oauth-client', '--name', 'Partner', '--redirect-uri', 'https://partner.example/callback'], {
      PORT: '9444',
      PUBLIC_BASE_URL: 'https://api.acme.test',
    });
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain(`Stored in ${join(dataDir, 'form-funnel.db')} (DATA_DIR=${dataDir})`);
    expect(outcome.stdout).toContain('codes are exchanged at https://api.acme.test/v1/oauth/token (PORT=9444)');
  });
});

describe('npm start', () => {
  it('when the PORT is already taken, then one line names PORT and the process exits 1', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const outcome = await server([], { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toBe(
        `PORT=${port} is already in use on 127.0.0.1: stop the process listening there or set PORT to a free port.\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
