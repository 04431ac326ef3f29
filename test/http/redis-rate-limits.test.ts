/**
 * Rate limits on Redis (the machine's, `TEST_REDIS_URL`, default redis://127.0.0.1:6379): every process of a
 * deployment counts into the same keys, and while Redis cannot be reached each process falls back to counting
 * on its own. Each test run writes under a prefix of its own and deletes its keys afterwards.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { Response } from 'express';
import { Redis } from 'ioredis';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defaultRateLimits } from '../../src/http/documented-limits.js';
import { consumeRequest, limitAfterAuthentication, limitBeforeAuthentication } from '../../src/http/rate-limits.js';
import { REDIS_COMMAND_TIMEOUT_MS, type RedisRateLimits, redisRateLimits } from '../../src/http/redis-rate-limits.js';
import type { WorkspaceRateLimits } from '../../src/store/types.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { expectProblem } from '../support/http-checks.js';
import { createStoreDatabase, type TestDatabase } from '../support/stores.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `ff-test-${randomBytes(6).toString('hex')}`;
const inspector = new Redis(redisUrl);

const opened: RedisRateLimits[] = [];
const apis: TestApi[] = [];
const databases: TestDatabase[] = [];
const proxies: TcpProxy[] = [];
function limits(settings: Partial<typeof defaultRateLimits>, options: { url?: string; keyPrefix?: string } = {}) {
  const availability: boolean[] = [];
  const shared = redisRateLimits(
    { ...defaultRateLimits, ...settings },
    {
      url: options.url ?? redisUrl,
      keyPrefix: options.keyPrefix ?? prefix,
      onAvailabilityChange: (available) => availability.push(available),
    },
  );
  opened.push(shared);
  return { ...shared, availability };
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((shared) => shared.close()));
  for (const api of apis.splice(0)) await api.close();
  for (const database of databases.splice(0)) await database.drop();
  for (const proxy of proxies.splice(0)) await proxy.close();
});

/**
 * Redis behind a proxy of this test's own, which can stop forwarding: a Redis that hangs for this client only
 * (CLIENT PAUSE would pause it for every test file of the run).
 */
async function redisBehindProxy(): Promise<{ url: string; proxy: TcpProxy }> {
  const target = new URL(redisUrl);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
  proxies.push(proxy);
  const url = new URL(redisUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { url: url.toString(), proxy };
}

const until = async (condition: () => boolean, timeoutMs = 3000) => {
  for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
  }
};

afterAll(async () => {
  const keys = await inspector.keys(`${prefix}:*`);
  if (keys.length > 0) await inspector.del(...keys);
  inspector.disconnect();
});

/** Consumes one point per call and reports how many were allowed. */
async function allowedOf(calls: Promise<RateLimiterRes>[]): Promise<number> {
  const settled = await Promise.allSettled(calls);
  for (const outcome of settled) if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(RateLimiterRes);
  return settled.filter((outcome) => outcome.status === 'fulfilled').length;
}

const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

describe('rate limits on Redis', () => {
  it('when one key is consumed through two processes, then both count into one shared budget in Redis', async () => {
    const [first, second] = [limits({ perKeyPerSecond: 10 }), limits({ perKeyPerSecond: 10 })];
    expect(await first.ready(5000)).toBe(true);
    expect(await second.ready(5000)).toBe(true);
    const allowed = await allowedOf(
      Array.from({ length: 16 }, (_, index) => (index % 2 === 0 ? first : second).policy.perKey.consume('key_shared')),
    );
    expect(allowed).toBe(10);
    expect(Number(await inspector.get(`${prefix}:key:key_shared`))).toBe(16);
    expect(first.availability).toEqual([true]);
  });

  it('when two deployments use different key prefixes, then neither spends the other budget', async () => {
    const [ours, theirs] = [limits({ perWorkspacePerMinute: 3 }), limits({ perWorkspacePerMinute: 3 }, { keyPrefix: `${prefix}:other` })];
    await Promise.all([ours.ready(5000), theirs.ready(5000)]);
    expect(await allowedOf(Array.from({ length: 4 }, () => ours.policy.perWorkspace.consume('ws_a')))).toBe(3);
    expect(await allowedOf(Array.from({ length: 4 }, () => theirs.policy.perWorkspace.consume('ws_a')))).toBe(3);
  });

  it('when Redis cannot be reached, then each process still limits on its own (the insurance limiter) and says Redis is down', async () => {
    const down = limits({ perKeyPerSecond: 5, failedAuthPerAddressPerMinute: 2 }, { url: `redis://127.0.0.1:${await closedPort()}` });
    expect(await down.ready(300)).toBe(false);
    expect(await allowedOf(Array.from({ length: 8 }, () => down.policy.perKey.consume('key_alone')))).toBe(5);
    expect(await allowedOf(Array.from({ length: 3 }, () => down.policy.failedAuthPerAddress.consume('192.0.2.1')))).toBe(2);
    expect((await down.policy.perKey.get('key_alone'))?.consumedPoints).toBe(8);
    expect(down.availability).toEqual([false]);
    expect(await inspector.exists(`${prefix}:key:key_alone`)).toBe(0);
  });

  it('when two apps on one database share Redis, then a workspace over its budget is refused by whichever app answers', async () => {
    const database = await createStoreDatabase();
    databases.push(database);
    const [first, second] = [limits({ perWorkspacePerMinute: 6 }), limits({ perWorkspacePerMinute: 6 })];
    await Promise.all([first.ready(5000), second.ready(5000)]);
    const one = await createTestApi({ store: await database.open(), rateLimits: first.policy });
    const two = await createTestApi({ store: await database.open(), rateLimits: second.policy });
    apis.push(two, one);
    // The second app bootstraps a workspace of its own; the first one's keys are the ones under test.
    const key = one.workspace.live_admin_key;
    const statuses: number[] = [];
    for (let index = 0; index < 10; index++) statuses.push((await (index % 2 === 0 ? one : two).call('get', '/v1/me', key)).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(6);
    expect(statuses.slice(6)).toEqual([429, 429, 429, 429]);
    const refused = await two.call('get', '/v1/me', key);
    expectProblem(refused, 429, 'rate_limit_error', 'rate_limited');
    expect(refused.headers['x-ratelimit-limit']).toBe('6');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('when Redis stops answering, then one command waits 100 ms, the next ones go to the insurance limiter at once, and the shared count resumes once Redis answers', async () => {
    const { url, proxy } = await redisBehindProxy();
    const hanging = limits({ perWorkspacePerMinute: 5 }, { url });
    expect(await hanging.ready(5000)).toBe(true);
    await hanging.policy.perWorkspace.consume('ws_hang');
    const shared = async () => Number(await inspector.get(`${prefix}:ws:ws_hang`));
    expect(await shared()).toBe(1);

    proxy.mode('hold');
    let started = performance.now();
    await hanging.policy.perWorkspace.consume('ws_hang');
    const finding = performance.now() - started;
    expect(finding).toBeGreaterThanOrEqual(REDIS_COMMAND_TIMEOUT_MS - 5);
    // Well short of the second a command used to be given; the margin is for a busy machine's timers.
    expect(finding).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS + 400);

    // One after another: waiting 100 ms each, six would take 600 ms.
    started = performance.now();
    const outcomes: boolean[] = [];
    for (let index = 0; index < 6; index++) {
      outcomes.push(
        await hanging.policy.perWorkspace.consume('ws_hang').then(
          () => true,
          (refusal: unknown) => {
            expect(refusal).toBeInstanceOf(RateLimiterRes);
            return false;
          },
        ),
      );
    }
    expect(performance.now() - started).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS);
    // The insurance limiter counts on its own from the first command that hung: 5 of its 7 are let through.
    expect(outcomes).toEqual([true, true, true, true, false, false]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(hanging.availability).toEqual([true, false]);

    proxy.mode('forward');
    await until(() => hanging.availability.length === 3);
    expect(hanging.availability).toEqual([true, false, true]);
    await hanging.policy.perWorkspace.consume('ws_hang');
    // The one before the hang, the one that hung (Redis ran it once it answered again), and this one.
    expect(await shared()).toBe(3);
  });

  it('when this process is too busy to read a reply in time, then Redis is not taken for hung and the count stays shared', async () => {
    const busy = limits({ perWorkspacePerMinute: 5 });
    expect(await busy.ready(5000)).toBe(true);
    const consumed = busy.policy.perWorkspace.consume('ws_busy');
    // Redis answers at once, but the reply waits unread while the event loop is blocked past the command timeout.
    const blockedUntil = performance.now() + REDIS_COMMAND_TIMEOUT_MS * 2.5;
    while (performance.now() < blockedUntil) {
      // Busy on purpose.
    }
    await consumed;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(busy.availability).toEqual([true]);
    await busy.policy.perWorkspace.consume('ws_busy');
    expect(Number(await inspector.get(`${prefix}:ws:ws_busy`))).toBe(2);
  });

  it('when an authenticated request is counted, then its key and workspace windows take one command to Redis', async () => {
    const shared = limits({});
    expect(await shared.ready(5000)).toBe(true);
    const database = await createStoreDatabase();
    databases.push(database);
    const api = await createTestApi({ store: await database.open(), rateLimits: shared.policy });
    apis.push(api);
    const monitor = await inspector.monitor();
    const sent: string[][] = [];
    // Commands a script runs are reported too, with source 'lua': only those sent over the network are round trips.
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((arg) => arg.startsWith(prefix))) sent.push(args);
    });
    try {
      expect((await api.call('get', '/v1/me')).status).toBe(200);
      await until(() => sent.length >= 1);
      // Whatever else the monitor is still delivering arrives within this pause.
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      monitor.disconnect();
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]!.some((arg) => arg.startsWith(`${prefix}:key:`))).toBe(true);
    expect(sent[0]!).toContain(`${prefix}:ws:${api.workspace.workspace_id}`);
  });

  it('when the key is over its window, then the workspace is not charged; when the workspace refuses, then the key gets its point back', async () => {
    const shared = limits({ perKeyPerSecond: 2, perWorkspacePerMinute: 3 });
    expect(await shared.ready(5000)).toBe(true);
    const { policy } = shared;
    const consume = (key: string) => policy.consumeBoth!(policy, key, 'ws_both');
    expect((await consume('key_a')).refusedBy).toBe(null);
    expect((await consume('key_a')).refusedBy).toBe(null);
    const overKey = await consume('key_a');
    expect(overKey.refusedBy).toBe('key');
    expect(overKey.key.remainingPoints).toBe(0);
    expect(overKey.workspace?.consumedPoints).toBe(2);
    expect(Number(await inspector.get(`${prefix}:ws:ws_both`))).toBe(2);

    expect((await consume('key_b')).refusedBy).toBe(null);
    const overWorkspace = await consume('key_b');
    expect(overWorkspace.refusedBy).toBe('workspace');
    expect(overWorkspace.workspace?.remainingPoints).toBe(0);
    expect(overWorkspace.workspace?.msBeforeNext).toBeGreaterThan(50_000);
    expect(Number(await inspector.get(`${prefix}:key:key_b`))).toBe(1);
    expect(overWorkspace.key.remainingPoints).toBe(1);

    const fresh = await policy.consumeBoth!(policy, 'key_c', 'ws_untouched_by_refusals');
    expect(fresh.key.consumedPoints).toBe(1);
    expect(fresh.workspace?.consumedPoints).toBe(1);
  });

  it('when an operator gives a workspace a limit of its own mid-window, then the requests already counted in the window still count', async () => {
    const shared = limits({ perKeyPerSecond: 100, perWorkspacePerMinute: 100 });
    expect(await shared.ready(5000)).toBe(true);
    const response = () => ({ headersSent: false, setHeader: () => undefined }) as unknown as Response;
    const request = (rateLimits: WorkspaceRateLimits | null) =>
      consumeRequest(shared.policy, response(), 'key_change', { id: 'ws_change', rateLimits });
    for (let count = 0; count < 3; count++) await request(null);
    const own = { perKeyPerSecond: 100, perWorkspacePerMinute: 4 };
    await request(own);
    await expect(request(own)).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number(await inspector.get(`${prefix}:ws:ws_change`))).toBe(5);
  });

  it("when a workspace's publishable keys spend their budget in one script, then its secret keys' window is untouched, and the other way round", async () => {
    const shared = limits({ perKeyPerSecond: 100, perWorkspacePerMinute: 2, publicPerWorkspacePerMinute: 3 });
    expect(await shared.ready(5000)).toBe(true);
    const response = () => ({ headersSent: false, setHeader: () => undefined }) as unknown as Response;
    const workspace = { id: 'ws_budgets', rateLimits: null };
    const visit = () => consumeRequest(shared.policy, response(), 'pk_site', workspace, 'publishable');
    const call = () => consumeRequest(shared.policy, response(), 'key_owner', workspace, 'secret');
    for (let count = 0; count < 3; count++) await visit();
    await expect(visit()).rejects.toMatchObject({ status: 429, message: expect.stringMatching(/publishable keys/) });
    await call();
    await call();
    await expect(call()).rejects.toMatchObject({ status: 429, message: expect.stringMatching(/in this workspace/) });
    expect(Number(await inspector.get(`${prefix}:pubws:ws_budgets`))).toBe(4);
    expect(Number(await inspector.get(`${prefix}:ws:ws_budgets`))).toBe(3);
  });

  it('when clients send from one IPv6 /64, then every per-address limit counts them under the /64 in Redis, and IPv4-mapped addresses as IPv4', async () => {
    const shared = limits({ publicPerAddressPerMinute: 2, failedAuthPerAddressPerMinute: 1 });
    expect(await shared.ready(5000)).toBe(true);
    const response = () => ({ headersSent: false, setHeader: () => undefined }) as unknown as Response;
    await limitBeforeAuthentication(shared.policy, response(), '2001:db8:4:4::1');
    await limitBeforeAuthentication(shared.policy, response(), '2001:db8:4:4:9::2');
    await expect(limitBeforeAuthentication(shared.policy, response(), '2001:db8:4:4::3')).rejects.toMatchObject({ status: 429 });
    expect(Number(await inspector.get(`${prefix}:public:2001:db8:4:4::/64`))).toBe(3);

    await limitAfterAuthentication(shared.policy, response(), '::ffff:192.0.2.44', { outcome: 'refused' });
    await expect(limitAfterAuthentication(shared.policy, response(), '192.0.2.44', { outcome: 'refused' })).rejects.toMatchObject({
      status: 429,
    });
    expect(Number(await inspector.get(`${prefix}:auth:192.0.2.44`))).toBe(2);
  });

  it('when Redis stops answering, then requests are served without waiting for it beyond the first 100 ms', async () => {
    const { url, proxy } = await redisBehindProxy();
    const hanging = limits({}, { url });
    expect(await hanging.ready(5000)).toBe(true);
    const database = await createStoreDatabase();
    databases.push(database);
    const api = await createTestApi({ store: await database.open(), rateLimits: hanging.policy });
    apis.push(api);
    expect((await api.call('get', '/v1/me')).status).toBe(200);

    proxy.mode('hold');
    expect((await api.call('get', '/v1/me')).status).toBe(200);
    const started = performance.now();
    for (let index = 0; index < 10; index++) {
      const res = await api.call('get', '/v1/me');
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toMatch(/^[1-9][0-9]*$/);
    }
    // Waiting 100 ms for each, ten requests would take a second.
    expect(performance.now() - started).toBeLessThan(700);
  });
});
