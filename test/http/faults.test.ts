/**
 * Faults of the PostgreSQL deployment as a client meets them: a database connection lost in the middle of a request,
 * and a database that is away, each answer 503 `service_unavailable` with `Retry-After`, and the process keeps
 * serving (an 'error' event nobody listens to would end it, and this file's worker with it). The app reaches the
 * database through a TCP proxy of the test's own, so the database can go away for this app only.
 *
 * These are faults of the PostgreSQL store: the file runs in the `api-postgres` project only (vitest.config.ts
 * excludes it from `api`: SQLite in memory has no connection to lose).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_RETRY_AFTER_SECONDS } from '../../src/http/error-handler.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { expectProblem, generousLimits, type WatchedApi, watchedApi } from '../support/http-checks.js';
import { createTestDatabase } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An app on a database of its own, reached through a proxy; `direct` is the database's own address, for the test. */
async function appBehindProxy(): Promise<{ api: WatchedApi; proxy: TcpProxy; direct: string }> {
  const database = await createTestDatabase();
  cleanups.push(database.drop);
  const direct = new URL(database.url);
  const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  cleanups.push(proxy.close);
  const proxied = new URL(database.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(proxy.port);
  const store = await createPostgresStore(proxied.toString(), { max: 4 });
  const api = await watchedApi({ store, rateLimits: generousLimits });
  cleanups.push(async () => {
    api.expectNoInternals();
    await api.close();
  });
  return { api, proxy, direct: database.url };
}

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  cleanups.push(() => client.end().catch(() => {}));
  return client;
}

function expectUnavailable(res: Parameters<typeof expectProblem>[0]): void {
  expectProblem(res, 503, 'server_error', 'service_unavailable');
  expect(res.headers['retry-after']).toBe(String(STORE_RETRY_AFTER_SECONDS));
  expect(res.body.message).toMatch(/retry after 1 second/);
}

const until = async (condition: () => Promise<boolean>, timeoutMs = 5000) => {
  for (const started = Date.now(); !(await condition()); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
  }
};

describe('faults of the PostgreSQL store', () => {
  it('when the database ends the connection of a request in flight, then that request gets 503 and the next one succeeds', async () => {
    const { api, direct } = await appBehindProxy();
    const created = await api.call('post', '/v1/forms').send({ name: 'Lead form' });
    expect(created.status).toBe(201);
    const formId = created.body.id as string;

    // The test holds the form's row, so the app's update waits for it inside its transaction (its client checked out).
    const holder = await connected(direct);
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM forms WHERE id = $1 FOR UPDATE', [formId]);
    const update = api.call('patch', `/v1/forms/${formId}`).send({ name: 'Renamed' });
    const inFlight = update.then((res) => res);
    const waiting = async () =>
      (
        await holder.query(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
        )
      ).rows as Array<{ pid: number }>;
    await until(async () => (await waiting()).length === 1);
    const [{ pid }] = (await waiting()) as [{ pid: number }];
    await holder.query('SELECT pg_terminate_backend($1)', [pid]);

    expectUnavailable(await inFlight);
    await holder.query('ROLLBACK');

    const renamed = await api.call('patch', `/v1/forms/${formId}`).send({ name: 'Renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Renamed');
    expect((await api.call('get', '/v1/me')).status).toBe(200);
  });

  it('when every connection of the app is ended while writes run, then each write is answered 201 or 503 and the app keeps serving', async () => {
    const { api, direct } = await appBehindProxy();
    const admin = await connected(direct);
    const terminateAll = () =>
      admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    const writes = Array.from({ length: 24 }, (_, index) =>
      api
        .call('post', '/v1/forms')
        .send({ name: `Form ${index}` })
        .then((res) => res),
    );
    for (let round = 0; round < 5; round++) {
      await terminateAll();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const answers = await Promise.all(writes);
    const statuses = new Set(answers.map((res) => res.status));
    expect([...statuses].filter((status) => status !== 201 && status !== 503)).toEqual([]);
    for (const res of answers.filter((answer) => answer.status === 503)) expectUnavailable(res);
    expect((await api.call('post', '/v1/forms').send({ name: 'After' })).status).toBe(201);
  });

  it('when the database is away, then reads and writes answer 503 at once, and once it is back they succeed again', async () => {
    const { api, proxy } = await appBehindProxy();
    expect((await api.call('get', '/v1/me')).status).toBe(200);
    proxy.mode('refuse');

    // /v1/me authenticates with the database (keys are read there on every request), so it answers 503 too: within
    // the store's connection timeout, not when the client gives up.
    const started = Date.now();
    expectUnavailable(await api.call('get', '/v1/me'));
    expectUnavailable(await api.call('post', '/v1/forms').send({ name: 'While away' }));
    expectUnavailable(await api.call('get', '/v1/forms'));
    expect(Date.now() - started).toBeLessThan(1500);

    proxy.mode('forward');
    expect((await api.call('get', '/v1/me')).status).toBe(200);
    expect((await api.call('post', '/v1/forms').send({ name: 'Back' })).status).toBe(201);
  });

  it('when the database stops answering, then a request waits no longer than the connection timeout for a fresh connection', async () => {
    const { api, proxy } = await appBehindProxy();
    expect((await api.call('get', '/v1/me')).status).toBe(200);
    // The pool's idle connections are cut and new ones hang: a request cannot connect, and is told so.
    proxy.mode('refuse');
    proxy.mode('hold');
    const started = Date.now();
    expectUnavailable(await api.call('get', '/v1/me'));
    expect(Date.now() - started).toBeLessThan(4000);
    proxy.mode('forward');
    expect((await api.call('get', '/v1/me')).status).toBe(200);
  });
});
