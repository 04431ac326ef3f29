/**
 * Enterprise rate limits set by an operator (`npm run admin -- workspace-limits`): refused for other plans, stored
 * in the database and applied by every server from its next request, without a restart, in X-RateLimit-Limit,
 * in the limits enforced (the publishable keys' workspace budget too) and in GET /v1/usage; audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdminInProcess, runAdminProcess } from '../support/admin.js';
import { createForm, formBody } from '../support/factories.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { expectProblem } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';
import { createStoreDatabase, type TestDatabase } from '../support/stores.js';

let database: TestDatabase;
/** Two servers on one database, as in a deployment of several processes. */
let first: TestApi;
let second: TestApi;

/**
 * `npm run admin -- <args>` against the shared database, run in this process (test/support/admin.ts); one case starts
 * the script itself.
 */
const admin = (...args: string[]) => runAdminInProcess(args, database.env);

beforeAll(async () => {
  database = await createStoreDatabase();
  first = await createTestApi({ store: await database.open(), plan: 'enterprise' });
  second = await createTestApi({ store: await database.open(), plan: 'business' });
});
afterAll(async () => {
  await first?.close();
  await second?.close();
  await database?.drop();
});

const limitOf = async (api: TestApi, key = first.workspace.live_admin_key) => {
  const res = await api.call('get', '/v1/me', key);
  expect(res.status).toBe(200);
  return Number(res.headers['x-ratelimit-limit']);
};

describe('npm run admin -- workspace-limits', () => {
  it('when the workspace is not on Enterprise, then the command is refused, says why, and nothing changes', async () => {
    // The script itself, as a process: its exit code and stderr.
    const res = await runAdminProcess(
      [
        'workspace-limits',
        '--workspace',
        second.workspace.workspace_id,
        '--per-key-per-second',
        '500',
        '--per-workspace-per-minute',
        '60000',
      ],
      database.env,
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/business plan: only Enterprise workspaces can have rate limits of their own/);
    expect(await limitOf(second, second.workspace.live_admin_key)).toBe(100);
  });

  it('when options are missing, contradictory or out of range, then usage errors and no change', async () => {
    const id = first.workspace.workspace_id;
    expect((await admin('workspace-limits', '--workspace', id)).code).toBe(2);
    expect((await admin('workspace-limits', '--workspace', id, '--per-key-per-second', '5')).code).toBe(2);
    expect(
      (await admin('workspace-limits', '--workspace', id, '--reset', '--per-key-per-second', '5', '--per-workspace-per-minute', '5')).code,
    ).toBe(2);
    const outOfRange = await admin(
      'workspace-limits',
      '--workspace',
      id,
      '--per-key-per-second',
      '0',
      '--per-workspace-per-minute',
      '2000000',
    );
    expect(outOfRange.code).toBe(1);
    expect(outOfRange.stderr).toMatch(/from 1 to 1000000/);
    const unknown = await admin('workspace-limits', '--workspace', 'ws_AAAAAAAAAAAAAAAAAAAAAAAA', '--reset');
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/No workspace ws_A+ exists/) });
    expect(await limitOf(first)).toBe(100);
  });

  it('when an operator sets an Enterprise workspace limits, then both servers apply them from the next request, and --reset undoes it', async () => {
    const id = first.workspace.workspace_id;
    expect(await limitOf(first)).toBe(100);
    expect(await limitOf(second)).toBe(100);

    const set = await admin(
      'workspace-limits',
      '--workspace',
      id,
      '--per-key-per-second',
      '5000',
      '--per-workspace-per-minute',
      '60',
      '--json',
    );
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      workspace_id: id,
      plan: 'enterprise',
      rate_limits: { per_key_per_second: 5000, per_workspace_per_minute: 60, custom: true },
    });
    // The per-workspace window (60 a minute) is now the one nearest to exhaustion, on either server.
    expect(await limitOf(first)).toBe(60);
    expect(await limitOf(second)).toBe(60);
    const usage = await second.call('get', '/v1/usage', first.workspace.live_admin_key);
    expect(usage.body.rate_limits).toEqual({ per_key_per_second: 5000, per_workspace_per_minute: 60, custom: true });

    const reset = await admin('workspace-limits', '--workspace', id, '--reset');
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/the standard rate limits/);
    expect(await limitOf(first)).toBe(100);
    expect((await first.call('get', '/v1/usage', first.workspace.live_admin_key)).body.rate_limits).toEqual({
      per_key_per_second: 100,
      per_workspace_per_minute: 10_000,
      custom: false,
    });

    const audit = await first.call('get', '/v1/audit_events?type=workspace.rate_limits_changed', first.workspace.live_admin_key);
    expect(audit.body.data.map((event: { reason: string }) => event.reason)).toEqual([
      'back to the standard limits',
      'per key 5000 requests per second, per workspace 60 per minute',
    ]);
    expect(audit.body.data[0]).toMatchObject({ actor: { type: 'system', id: null, name: null }, target: { type: 'workspace', id } });
  });

  it('when a workspace limit is set lower than the traffic, then requests beyond it get 429 with that limit', async () => {
    const id = first.workspace.workspace_id;
    expect(
      (await admin('workspace-limits', '--workspace', id, '--per-key-per-second', '100', '--per-workspace-per-minute', '3')).code,
    ).toBe(0);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await first.call('get', '/v1/me', first.workspace.live_admin_key));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 429]);
    expectProblem(answers[3]!, 429, 'rate_limit_error', 'rate_limited');
    expect(answers[3]!.body.message).toMatch(/More than 3 requests per minute/);
    expect(answers[3]!.headers['x-ratelimit-limit']).toBe('3');
    expect((await admin('workspace-limits', '--workspace', id, '--reset')).code).toBe(0);
    expect((await first.call('get', '/v1/me', first.workspace.live_admin_key)).status).toBe(200);
  });

  it("when a workspace limit below the visitors' standard budget is set, then the visitors keep theirs, apart from the secret keys'", async () => {
    const id = first.workspace.workspace_id;
    const form = await createForm(first, formBody('Visited'));
    const site = await createPublishableKey(first, { environment: 'live' });
    expect(
      (await admin('workspace-limits', '--workspace', id, '--per-key-per-second', '100', '--per-workspace-per-minute', '4')).code,
    ).toBe(0);
    const visits = [];
    for (let i = 0; i < 5; i++) visits.push(await first.call('get', `/v1/public/forms/${form.id}`, site.value));
    expect(visits.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    expect(visits.map((res) => res.headers['x-ratelimit-limit'])).not.toContain('4');

    const me = await first.call('get', '/v1/me', first.workspace.live_admin_key);
    expect(me.status).toBe(200);
    expect(me.headers['x-ratelimit-limit']).toBe('4');
    expect(me.headers['x-ratelimit-remaining']).toBe('3');
    expect((await admin('workspace-limits', '--workspace', id, '--reset')).code).toBe(0);
  });
});
