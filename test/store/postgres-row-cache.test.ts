/**
 * Cached rows on PostgreSQL (src/store/postgres/row-cache.ts): the API key and form every request reads, and the
 * preflights' verdicts of origins, come from each process's memory, and a change committed anywhere reaches every
 * process within the stated bound. Two stores on one database stand for two processes: each has its own pool, its
 * own caches and its own listening connection.
 */
import type pg from 'pg';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/domain/keys/secret.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { buildApp } from '../../src/http/app.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { postgresRowCaches, TRUST_MS } from '../../src/store/postgres/row-cache.js';
import type { Store } from '../../src/store/types.js';
import { createForm } from '../support/factories.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { generousLimits } from '../support/http-checks.js';
import { createStoreDatabase, storedRows, type TestDatabase } from '../support/stores.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const opened: Array<{ close(): Promise<void> }> = [];
const databases: TestDatabase[] = [];
afterEach(async () => {
  for (const closable of opened.splice(0).reverse()) await closable.close();
  for (const database of databases.splice(0)) await database.drop();
});

/** Two processes' stores on one new database, with a workspace and its live admin key made through the first. */
async function twoStores(): Promise<{ one: Store; two: Store; hash: Buffer; workspaceId: string; database: TestDatabase }> {
  const database = await createStoreDatabase('postgres');
  databases.push(database);
  const one = await database.open();
  const two = await database.open();
  opened.push(one, two);
  const workspace = await bootstrapWorkspace(buildApp({ store: one }).services, { name: 'Cache', plan: 'business' });
  return { one, two, hash: hashSecret(workspace.live_admin_key), workspaceId: workspace.workspace_id, database };
}

const revokeAll = (store: Store) =>
  storedRows(store, "UPDATE api_keys SET status = 'revoked', revocation_cause = 'revoked', revoked_at = '2026-01-01T00:00:00.000Z'");

/** Reads through `store` until `done` holds, and says how long that took (ms), or fails after `limitMs`. */
async function timeUntil(read: () => Promise<boolean>, limitMs: number): Promise<number> {
  const started = performance.now();
  while (!(await read())) {
    const waited = performance.now() - started;
    if (waited > limitMs) throw new Error(`not seen within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now() - started;
}

/**
 * Reads until two reads in a row hand out the same record (so it is cached), and returns it. A write made just
 * before (the setup's) empties the caches when its notification and the next counter check arrive, a few
 * milliseconds later: a row read before then is not kept.
 */
async function cachedRead<T>(read: () => Promise<T>): Promise<T> {
  let last = await read();
  await timeUntil(async () => {
    const next = await read();
    const same = next === last;
    last = next;
    return same;
  }, 2000);
  return last;
}

/** The listening connections of a database's stores, ended as an administrator (or a failover) would end them. */
const terminateListeners = (store: Store) =>
  storedRows(
    store,
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE datname = current_database() AND application_name = 'form-funnel cache listener'`,
  );

describe('PostgreSQL row caches', () => {
  it('when a key is read again, then the same frozen record comes from memory', async () => {
    const { two, hash } = await twoStores();
    const first = await cachedRead(() => two.apiKeys.findBySecretHash(hash));
    expect(first?.key.status).toBe('active');
    expect(Object.isFrozen(first)).toBe(true);
    expect(await two.apiKeys.findBySecretHash(hash)).toBe(first);
  });

  it('when a key is revoked through one process, then the other refuses it within a second, in practice within milliseconds', async () => {
    const { one, two, hash } = await twoStores();
    expect((await cachedRead(() => two.apiKeys.findBySecretHash(hash)))?.key.status).toBe('active');
    await revokeAll(one);
    const waited = await timeUntil(async () => (await two.apiKeys.findBySecretHash(hash))?.key.status === 'revoked', 1000);
    expect(waited).toBeLessThan(TRUST_MS);
  });

  it('when this process writes a cached row, then its very next read sees the write, without waiting for a notification', async () => {
    const { one, hash, workspaceId } = await twoStores();
    expect((await cachedRead(() => one.apiKeys.findBySecretHash(hash)))?.workspace.rateLimits).toBeNull();
    await storedRows(
      one,
      'UPDATE workspaces SET rate_limit_per_key_per_second = 7, rate_limit_per_workspace_per_minute = 70 WHERE id = ?',
      workspaceId,
    );
    expect((await one.apiKeys.findBySecretHash(hash))?.workspace.rateLimits).toEqual({ perKeyPerSecond: 7, perWorkspacePerMinute: 70 });
    await revokeAll(one);
    expect((await one.apiKeys.findBySecretHash(hash))?.key.status).toBe('revoked');
  });

  it('when the listening connection is lost, then the caches are passed by until it listens again, and nothing changed meanwhile is answered stale', async () => {
    const { one, two, hash } = await twoStores();
    expect((await cachedRead(() => two.apiKeys.findBySecretHash(hash)))?.key.status).toBe('active');
    await terminateListeners(one);
    // Committed while nobody listens: no notification will ever say so.
    await revokeAll(one);
    await timeUntil(async () => (await two.apiKeys.findBySecretHash(hash))?.key.status === 'revoked', 1000);
    // Listening again, the caches answer from memory again.
    expect(await cachedRead(() => two.apiKeys.findBySecretHash(hash))).toBeDefined();
  });

  it('when the version counter moves without a notification, then every cache is emptied at the next check', async () => {
    const { one, two, hash } = await twoStores();
    expect((await cachedRead(() => two.apiKeys.findBySecretHash(hash)))?.key.status).toBe('active');
    // A write with triggers off (replication role) sends nothing; only the counter, moved by hand, says it happened.
    await storedRows(
      one,
      `DO $$ BEGIN
         SET LOCAL session_replication_role = replica;
         UPDATE api_keys SET status = 'revoked', revocation_cause = 'revoked', revoked_at = '2026-01-01T00:00:00.000Z';
         PERFORM nextval('form_funnel_cache_version');
       END $$`,
    );
    await timeUntil(async () => (await two.apiKeys.findBySecretHash(hash))?.key.status === 'revoked', 1000);
  });
});

describe('a PostgreSQL row cache emptied while a read is loading', () => {
  /**
   * A cache of the forms table on the pool of `one` (this process), a read of it held mid-load, and `two` (another
   * process) on the same database.
   */
  async function heldRead() {
    const { one, two } = await twoStores();
    const caches = await postgresRowCaches((one as Store & { pool: pg.Pool }).pool);
    opened.push(caches);
    const cache = caches.create<string>(['forms'], { rows: 10 });
    let loads = 0;
    const load = (value: string) => async () => {
      loads++;
      return value;
    };
    // The cache answers from memory: a row read without interference is kept.
    await timeUntil(async () => {
      const before = loads;
      await cache.get('probe', load('probe'));
      return loads === before;
    }, 2000);
    let finish!: (row: string) => void;
    const held = cache.get('form_1', () => {
      loads++;
      return new Promise<string>((resolve) => {
        finish = resolve;
      });
    });
    /** Whether the cache was emptied since the probe was last read: the probe is loaded again. */
    const emptied = async () => {
      const before = loads;
      await cache.get('probe', load('probe'));
      return loads > before;
    };
    return { one, two, cache, load, held, finish: (row: string) => finish(row), emptied, loads: () => loads };
  }

  it('when another process commits a change to the table meanwhile, then the row loaded before it is not kept', async () => {
    const { two, cache, load, held, finish, emptied, loads } = await heldRead();
    await storedRows(two, "UPDATE forms SET name = name || ''");
    // Its notification (or the next check of the version counter) empties the cache while the read still loads.
    await timeUntil(emptied, 1000);
    finish('before the change');
    expect(await held).toBe('before the change');
    const before = loads();
    expect(await cache.get('form_1', load('after the change'))).toBe('after the change');
    expect(loads()).toBe(before + 1);
  });

  it('when this process writes the table meanwhile, then the row loaded before its write is not kept', async () => {
    const { one, cache, load, held, finish, loads } = await heldRead();
    // The write's NOTICE empties the cache during the statement, and again when its connection goes back to the pool.
    await storedRows(one, "UPDATE forms SET name = name || ''");
    finish('before the write');
    expect(await held).toBe('before the write');
    const before = loads();
    expect(await cache.get('form_1', load('after the write'))).toBe('after the write');
    expect(loads()).toBe(before + 1);
  });
});

describe('PostgreSQL row caches when the database hangs', () => {
  it('when the database stops answering, then the caches stop answering within the trust window', async () => {
    const database = await createStoreDatabase('postgres');
    databases.push(database);
    const direct = new URL(database.env.DATABASE_URL!);
    const proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    opened.push(proxy);
    const proxied = new URL(direct);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    const store = await createPostgresStore(proxied.toString(), { max: 2 });
    const workspace = await bootstrapWorkspace(buildApp({ store }).services, { name: 'Hang', plan: 'business' });
    const hash = hashSecret(workspace.live_admin_key);
    await cachedRead(() => store.apiKeys.findBySecretHash(hash));

    proxy.mode('hold');
    const held = performance.now();
    // A read from memory settles at once; one that goes to the database waits on the held connection.
    const pending: Array<Promise<unknown>> = [];
    for (;;) {
      const read = store.apiKeys.findBySecretHash(hash);
      pending.push(read.catch(() => undefined));
      const answered = await Promise.race([read.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 50))]);
      if (!answered) break;
      expect(performance.now() - held).toBeLessThan(TRUST_MS + 300);
    }
    expect(performance.now() - held).toBeLessThan(TRUST_MS + 300);
    proxy.mode('forward');
    await Promise.all(pending);
    await store.close();
  });
});

describe('PostgreSQL row caches behind two apps', () => {
  const apis: TestApi[] = [];
  afterEach(async () => {
    for (const api of apis.splice(0)) await api.close();
  });

  it('when a key is revoked through one app, then the other app answers it 401 within a second', async () => {
    const database = await createStoreDatabase('postgres');
    databases.push(database);
    const one = await createTestApi({ store: await database.open() });
    const two = await createTestApi({ store: await database.open() });
    apis.push(two, one);
    const created = await one.createKey({ name: 'Revoked soon', scope: 'read', environment: 'live' });
    const { secret } = created;
    expect((await two.call('get', '/v1/me', secret)).status).toBe(200);
    expect((await two.call('get', '/v1/me', secret)).status).toBe(200);
    expect((await one.call('delete', `/v1/api_keys/${created.id}`)).status).toBe(200);
    const waited = await timeUntil(async () => (await two.call('get', '/v1/me', secret)).status === 401, 1000);
    expect(waited).toBeLessThan(1000);
    expect((await two.call('get', '/v1/me', secret)).status).toBe(401);
  });

  it('when a key’s origins change through one app, then the other serves the new ones at once and grants their preflights within the bound', async () => {
    const database = await createStoreDatabase('postgres');
    databases.push(database);
    const one = await createTestApi({ store: await database.open(), rateLimits: generousLimits });
    const two = await createTestApi({ store: await database.open(), rateLimits: generousLimits });
    apis.push(two, one);
    const [before, after] = ['https://before.cache.example', 'https://after.cache.example'];
    const created = await one.call('post', '/v1/publishable_keys').send({ name: 'Site', environment: 'live', allowed_origins: [before] });
    expect(created.status).toBe(201);
    const form = await createForm(one);
    const granted = async (origin: string) => {
      const res = await request(two.baseUrl)
        .options('/v1/public/submissions')
        .trustLocalhost()
        .ca(two.certificate)
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'POST');
      return res.headers['access-control-allow-origin'] === origin;
    };
    const served = async (origin: string) =>
      (await two.call('get', `/v1/public/forms/${form.id}`, created.body.value).set('Origin', origin)).status === 200;
    // The second process has read both verdicts, and keeps them once the create's notification has come and gone.
    await timeUntil(async () => (await granted(before)) && !(await granted(after)), 1000);
    await new Promise((resolve) => setTimeout(resolve, TRUST_MS));
    expect([await granted(before), await granted(after), await served(after)]).toEqual([true, false, false]);

    expect((await one.call('patch', `/v1/publishable_keys/${created.body.id}`).send({ allowed_origins: [after] })).status).toBe(200);
    // The request reads its key from the database: the new origins hold from the very next one.
    expect([await served(after), await served(before)]).toEqual([true, false]);
    const waited = await timeUntil(async () => (await granted(after)) && !(await granted(before)), 1000);
    expect(waited).toBeLessThan(TRUST_MS);
  });

  it('when a form changes through one app, then the other app reads the new version, and a deleted form is gone', async () => {
    const database = await createStoreDatabase('postgres');
    databases.push(database);
    const one = await createTestApi({ store: await database.open() });
    apis.push(one);
    const two = await database.open();
    opened.push(two);
    const { workspace_id: workspaceId } = one.workspace;
    const [a, b] = [(await createForm(one, { name: 'A' })).id, (await createForm(one, { name: 'B' })).id];
    expect((await cachedRead(() => two.forms.get(workspaceId, a)))?.form.name).toBe('A');
    expect((await two.forms.get(workspaceId, b))?.form.name).toBe('B');
    expect((await one.call('patch', `/v1/forms/${a}`).send({ name: 'Renamed' })).status).toBe(200);
    const waited = await timeUntil(async () => (await two.forms.get(workspaceId, a))?.form.name === 'Renamed', 1000);
    expect(waited).toBeLessThan(TRUST_MS);
    expect((await one.call('delete', `/v1/forms/${b}`)).status).toBe(200);
    await timeUntil(async () => (await two.forms.get(workspaceId, b)) === undefined, 1000);
  });
});
