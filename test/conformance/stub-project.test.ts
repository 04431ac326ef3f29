/**
 * The conformance kit against a fresh stub project (`npm run stubs`), as an implementer meets it on day one:
 * every operation is reported "not implemented", which is not a pass (exit code 2). Once getMe is written,
 * that operation passes.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeOf, runConformance } from '../../src/conformance/run.js';
import { exportedHandlers } from '../../src/stubs/handler-source.js';
import { type RunningServer, repositoryRoot, type StubProject, startServer, stubProject } from '../stubs/stub-project.js';

const run = promisify(execFile);
// Keys of the documented shape: a fresh stub accepts every one of them as an admin key of no workspace in particular.
const key = `svc_test_${'a'.repeat(40)}`;
const otherKey = `svc_test_${'b'.repeat(40)}`;

/** `npm run conformance -- …` as a CI job runs it: its exit code, its JSON report (when it made one) and its stderr. */
async function conformanceCommand(...args: string[]): Promise<{
  code: number;
  report: { summary: Record<string, number>; operations: Array<{ operationId: string; outcome: string }> } | undefined;
  stderr: string;
}> {
  const command = run(process.execPath, ['--import', 'tsx', 'src/cli/conformance.ts', ...args, '--json'], {
    cwd: repositoryRoot,
    maxBuffer: 16 * 1024 * 1024,
  });
  const { stdout, stderr, code } = await command.then(
    ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
    (error: { stdout: string; stderr: string; code: number }) => ({ stdout: error.stdout, stderr: error.stderr, code: error.code }),
  );
  return { code, report: stdout ? JSON.parse(stdout) : undefined, stderr };
}

describe('the conformance kit against a fresh stub project', () => {
  let project: StubProject;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    project = await stubProject();
    server = await startServer(project.dir);
  });

  afterAll(async () => {
    await server?.stop();
    project?.remove();
  });

  it('when every handler is still the generated one, then every operation is not implemented and the exit code is 2', async () => {
    const { code, report: made } = await conformanceCommand('--base-url', server!.baseUrl, '--key', key, '--key-other-workspace', otherKey);
    const report = made!;

    expect(report.operations.filter((result) => result.outcome !== 'not_implemented')).toEqual([]);
    expect(report.operations.length).toBeGreaterThan(50);
    expect(report.summary).toMatchObject({ pass: 0, fail: 0, skipped: 0, not_implemented: report.operations.length });
    expect(code).toBe(2);
  });

  it('when the server refuses --key (401), then no check runs: exit code 3, "the key was refused" and no report', async () => {
    const { code, report, stderr } = await conformanceCommand('--base-url', server!.baseUrl, '--key', 'not_a_key');

    expect(code).toBe(3);
    expect(report).toBeUndefined();
    expect(stderr).toBe(
      'The conformance run could not be made: the key was refused: GET /me with --key answered 401 (invalid_api_key: The API key is unknown, expired or revoked.). Pass a key this server issued (for --key, a key of the workspace the run works in, best an admin key).\n',
    );
  });

  it('when getMe is implemented, then getMe passes', async () => {
    const handlers = join(project.dir, 'src/handlers/account.ts');
    const generated = "export const getMe: Handler<'getMe'> = async () => notImplemented('getMe');";
    expect(readFileSync(handlers, 'utf8')).toContain(generated);
    writeFileSync(
      handlers,
      readFileSync(handlers, 'utf8').replace(
        generated,
        `export const getMe: Handler<'getMe'> = async ({ key }) => ({
  status: 200,
  body: {
    object: 'me',
    id: 'key_3wEr6TyU9iOp2AsD5fGh8JkL',
    auth_type: 'api_key',
    name: 'Stub key',
    environment: key!.environment,
    scope: key!.scope,
    attachment: { type: 'workspace' },
    expires_at: null,
    workspace: { id: 'ws_VvUmpz0dDk8wqCpDCpLx5b8R', object: 'workspace', name: 'Stub', plan: 'free' },
    member: null,
  },
});`,
      ),
    );
    await server!.stop();
    server = await startServer(project.dir);

    // --only reports one operation: every phase still runs, and the other operations still answer 501.
    const report = await runConformance({ baseUrl: server.baseUrl, keys: { main: key }, only: ['getMe'] });

    expect(report.operations.map(({ operationId, outcome, failures }) => ({ operationId, outcome, failures }))).toEqual([
      { operationId: 'getMe', outcome: 'pass', failures: [] },
    ]);
    expect(exitCodeOf(report)).toBe(0);
  });

  it("when a handler answers what its operation does not describe, then the kit fails it with the stub's 500 and prints what the stub's response validation found", async () => {
    const handlers = join(project.dir, 'src/handlers/account.ts');
    const source = readFileSync(handlers, 'utf8');
    const getMe = exportedHandlers('account.ts', source).find((found) => found.name === 'getMe')!;
    const broken = "export const getMe: Handler<'getMe'> = async () => ({ status: 200, body: { object: 'me' } as never });";
    writeFileSync(handlers, source.slice(0, getMe.start) + broken + source.slice(getMe.end));
    await server!.stop();
    server = await startServer(project.dir);

    const report = await runConformance({ baseUrl: server.baseUrl, keys: { main: key }, only: ['getMe'] });

    const [result] = report.operations;
    expect(result?.outcome).toBe('fail');
    expect(result?.failures).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          check: 'not_a_server_error',
          message: expect.stringMatching(
            /^500 \(internal_error: .*\): the handler's answer failed the server's own response validation: .*\/id must have required property 'id'/,
          ),
        }),
      ]),
    );
    expect(exitCodeOf(report)).toBe(1);
  });
});
