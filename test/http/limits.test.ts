/**
 * Rate limits: per key, per workspace, and failed authentications per client address,
 * reported on every response and enforced with 429 and Retry-After.
 */
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Response } from 'supertest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultRateLimits } from '../../src/http/documented-limits.js';
import { addressKeyOf } from '../../src/http/rate-limits.js';
import { formBody } from '../support/factories.js';
import { expectEnvelopeHeaders, expectProblem, type WatchedApi, watchedApi } from '../support/http-checks.js';

const started: WatchedApi[] = [];
async function startApi(options: Parameters<typeof watchedApi>[0]): Promise<WatchedApi> {
  const api = await watchedApi(options);
  started.push(api);
  return api;
}
afterEach(async () => {
  for (const api of started.splice(0)) {
    api.expectNoInternals();
    await api.close();
  }
});

function expectRateLimited(res: Response, maxSeconds: number): number {
  expectProblem(res, 429, 'rate_limit_error', 'rate_limited');
  const retryAfter = res.headers['retry-after'];
  expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
  const seconds = Number(retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(maxSeconds);
  expect(res.body.details).toEqual({ retry_after_seconds: seconds });
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  return seconds;
}

const header = (res: Response, name: string) => Number(res.headers[name]);

describe('per-key limit', () => {
  /**
   * The per-key window is one second by default; under a loaded test machine a burst of TLS requests can
   * straddle two such windows, so these tests give the per-key limiter a minute-long window (the policy is
   * pluggable for exactly this kind of reason) and check the one-second default through the headers.
   */
  const perKeyPolicy = (points: number, duration = 60) => ({
    perKey: new RateLimiterMemory({ keyPrefix: 'key', points, duration }),
    perWorkspace: new RateLimiterMemory({ keyPrefix: 'ws', points: 100_000, duration: 60 }),
    failedAuthPerAddress: new RateLimiterMemory({ keyPrefix: 'auth', points: 100_000, duration: 60 }),
    publicPerAddress: new RateLimiterMemory({ keyPrefix: 'public', points: 1000, duration: 60 }),
    publicPerWorkspace: new RateLimiterMemory({ keyPrefix: 'pubws', points: 1000, duration: 60 }),
    addressKey: addressKeyOf(defaultRateLimits),
  });

  it('when a key exceeds its limit, then 429 rate_limited with Retry-After; other keys are unaffected', async () => {
    const api = await startApi({ rateLimits: perKeyPolicy(3) });
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const other = await api.createKey({ environment: 'live', scope: 'read' });

    const responses = await Promise.all(Array.from({ length: 6 }, () => api.call('get', '/v1/forms', key.secret)));
    const ok = responses.filter((res) => res.status === 200);
    const limited = responses.filter((res) => res.status === 429);
    expect(ok).toHaveLength(3);
    expect(limited).toHaveLength(3);
    for (const res of limited) {
      expectRateLimited(res, 60);
      expect(header(res, 'x-ratelimit-limit')).toBe(3);
      expect(res.body.message).toMatch(/this key/);
    }
    for (const res of ok) expect(header(res, 'x-ratelimit-limit')).toBe(3);
    expect(ok.map((res) => header(res, 'x-ratelimit-remaining')).sort()).toEqual([0, 1, 2]);

    expect((await api.call('get', '/v1/forms', other.secret)).status).toBe(200);
  });

  it('when the window has passed, then the key works again', async () => {
    const api = await startApi({ rateLimits: perKeyPolicy(1, 1) });
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    let limited: Response | undefined;
    for (let attempt = 0; attempt < 20 && !limited; attempt++) {
      const res = await api.call('get', '/v1/me', key.secret);
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(200);
    }
    const seconds = expectRateLimited(limited!, 1);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 50));
    expect((await api.call('get', '/v1/me', key.secret)).status).toBe(200);
  });

  it('when a request is limited, then nothing happens: the form is not created', async () => {
    const api = await startApi({ rateLimits: perKeyPolicy(1) });
    const key = await api.createKey({ environment: 'live', scope: 'read_write' });
    const responses = await Promise.all([1, 2, 3].map((n) => api.call('post', '/v1/forms', key.secret).send(formBody(`Limited ${n}`))));
    expect(responses.map((res) => res.status).sort()).toEqual([201, 429, 429]);
    // Every key is at its limit now; count in the database.
    expect(await api.rows('SELECT COUNT(*) AS n FROM forms')).toEqual([{ n: 1 }]);
  });
});

describe('per-workspace limit', () => {
  it('when a workspace exceeds its requests per minute, then every key of it gets 429; other workspaces do not', async () => {
    const api = await startApi({ rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 4, failedAuthPerAddressPerMinute: 1000 } });
    const other = await api.otherWorkspace();
    const { live_admin_key: a, test_admin_key: b } = api.workspace;
    const statuses: number[] = [];
    for (const key of [a, b, a, b]) statuses.push((await api.call('get', '/v1/me', key)).status);
    expect(statuses).toEqual([200, 200, 200, 200]);

    const limited = await api.call('get', '/v1/me', b);
    const seconds = expectRateLimited(limited, 60);
    expect(header(limited, 'x-ratelimit-limit')).toBe(4);
    expect(limited.body.message).toMatch(/workspace/);
    expect(seconds).toBeGreaterThanOrEqual(1);

    expect((await api.call('get', '/v1/me', other.live_admin_key)).status).toBe(200);
  });

  it('when one key bursts past its own limit, then its refused requests do not spend the workspace budget of the other keys', async () => {
    const api = await startApi({
      rateLimits: {
        perKey: new RateLimiterMemory({ keyPrefix: 'key', points: 2, duration: 60 }),
        perWorkspace: new RateLimiterMemory({ keyPrefix: 'ws', points: 5, duration: 60 }),
        failedAuthPerAddress: new RateLimiterMemory({ keyPrefix: 'auth', points: 1000, duration: 60 }),
        publicPerAddress: new RateLimiterMemory({ keyPrefix: 'public', points: 1000, duration: 60 }),
        publicPerWorkspace: new RateLimiterMemory({ keyPrefix: 'pubws', points: 1000, duration: 60 }),
        addressKey: addressKeyOf(defaultRateLimits),
      },
    });
    const bursting = await api.createKey({ environment: 'live', scope: 'read' });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await api.call('get', '/v1/me', bursting.secret)).status);
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429, 429, 429, 429, 429]);

    // The workspace has admitted 3 requests (the key creation and the burst's 2): 2 are left for another key.
    const other = api.workspace.test_admin_key;
    const admitted = [await api.call('get', '/v1/me', other), await api.call('get', '/v1/me', other)];
    expect(admitted.map((res) => res.status)).toEqual([200, 200]);
    expect(header(admitted[0]!, 'x-ratelimit-limit')).toBe(5);
    expect(header(admitted[0]!, 'x-ratelimit-remaining')).toBe(1);
    const limited = await api.call('get', '/v1/me');
    expectRateLimited(limited, 60);
    expect(limited.body.message).toMatch(/workspace/);
  });

  it('when the workspace window is nearer exhaustion than the key window, then the headers report the workspace window', async () => {
    const api = await startApi({ rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 10, failedAuthPerAddressPerMinute: 1000 } });
    const res = await api.call('get', '/v1/me');
    expect(header(res, 'x-ratelimit-limit')).toBe(10);
    expect(header(res, 'x-ratelimit-remaining')).toBe(9);
    const reset = header(res, 'x-ratelimit-reset');
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
  });
});

describe('failed authentications per client address', () => {
  it('when an address fails to authenticate too often, then its further failures get 429 but its valid keys still work; other addresses are unaffected', async () => {
    const api = await startApi({
      trustedProxies: ['127.0.0.1'],
      rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 10_000, failedAuthPerAddressPerMinute: 3 },
    });
    const office = (key: string | null) => api.call('get', '/v1/me', key).set('X-Forwarded-For', '198.51.100.1');
    const remaining: number[] = [];
    for (const guess of ['svc_live_short', `svc_live_${'G'.repeat(40)}`, null]) {
      const res = await office(guess);
      expectProblem(res, 401, 'authentication_error', 'invalid_api_key');
      expect(header(res, 'x-ratelimit-limit')).toBe(3);
      remaining.push(header(res, 'x-ratelimit-remaining'));
    }
    expect(remaining).toEqual([2, 1, 0]);

    const blocked = await office(`svc_live_${'H'.repeat(40)}`);
    expectRateLimited(blocked, 60);
    expect(blocked.body.message).toMatch(/failed authentications/);

    const colleague = await office(api.workspace.live_admin_key);
    expect(colleague.status).toBe(200);
    expect(colleague.body.id).toBeDefined();
    expectRateLimited(await office(null), 60);

    const elsewhere = await api.call('get', '/v1/nowhere-near', null).set('X-Forwarded-For', '198.51.100.2');
    expect(header(elsewhere, 'x-ratelimit-remaining')).toBe(3);
  });

  it('when an address authenticates successfully, then its failed-authentication budget is not spent', async () => {
    const api = await startApi({
      trustedProxies: ['127.0.0.1'],
      rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 10_000, failedAuthPerAddressPerMinute: 2 },
    });
    for (let i = 0; i < 5; i++) {
      expect((await api.call('get', '/v1/me').set('X-Forwarded-For', '198.51.100.3')).status).toBe(200);
    }
  });

  it('when no key is known yet (unknown path), then the headers report the address budget', async () => {
    const api = await startApi({ rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 10_000, failedAuthPerAddressPerMinute: 7 } });
    const res = await api.call('get', '/v1/nowhere', null);
    expectProblem(res, 404, 'not_found', 'route_not_found');
    expect(header(res, 'x-ratelimit-limit')).toBe(7);
    expect(header(res, 'x-ratelimit-remaining')).toBe(7);
  });

  it('when the answer is not about a key (a public document, the token endpoint, an address outside the allowlist), then the headers report the address budget', async () => {
    const api = await startApi({
      trustedProxies: ['127.0.0.1'],
      rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 10_000, failedAuthPerAddressPerMinute: 9 },
    });
    const allowlisted = await api.createKey({ environment: 'live', scope: 'read', ip_allowlist: ['192.0.2.1'] });
    const answers: Array<[string, Response]> = [
      ['openapi.json', await api.call('get', '/openapi.json', null)],
      ['openapi.yaml', await api.call('get', '/openapi.yaml', null)],
      // A wrong grant is counted against the address (8 left), as a wrong key is.
      ['token', await api.call('post', '/v1/oauth/token', null).type('form').send('grant_type=refresh_token&refresh_token=x&client_id=y')],
      ['ip_not_allowed', await api.call('get', '/v1/me', allowlisted.secret).set('X-Forwarded-For', '198.51.100.40')],
    ];
    expect(answers.map(([label, res]) => `${label} ${res.status}`)).toEqual([
      'openapi.json 200',
      'openapi.yaml 200',
      'token 400',
      'ip_not_allowed 403',
    ]);
    for (const [label, res] of answers) {
      expect(header(res, 'x-ratelimit-limit'), label).toBe(9);
      expect(res.headers['x-ratelimit-reset'], label).toMatch(/^[1-9][0-9]{9}$/);
    }
    expect(answers.map(([, res]) => header(res, 'x-ratelimit-remaining'))).toEqual([9, 9, 8, 9]);
  });

  it('when a key is admitted, then the address budget is not looked up (its headers would be replaced by the key windows)', async () => {
    const failedAuthPerAddress = new RateLimiterMemory({ keyPrefix: 'auth', points: 100, duration: 60 });
    const lookups = vi.spyOn(failedAuthPerAddress, 'get');
    const api = await startApi({
      rateLimits: {
        perKey: new RateLimiterMemory({ keyPrefix: 'key', points: 1000, duration: 1 }),
        perWorkspace: new RateLimiterMemory({ keyPrefix: 'ws', points: 10_000, duration: 60 }),
        failedAuthPerAddress,
        publicPerAddress: new RateLimiterMemory({ keyPrefix: 'public', points: 1000, duration: 60 }),
        publicPerWorkspace: new RateLimiterMemory({ keyPrefix: 'pubws', points: 1000, duration: 60 }),
        addressKey: addressKeyOf(defaultRateLimits),
      },
    });
    const before = lookups.mock.calls.length;
    for (const res of [await api.call('get', '/v1/me'), await api.call('post', '/v1/folders').send({ name: 'Looked up' })]) {
      expect(res.status).toBeLessThan(300);
      expect(header(res, 'x-ratelimit-limit')).toBe(1000);
    }
    expect(lookups.mock.calls.length - before).toBe(0);
    // A problem with no key's window to report still gets the address's.
    expect(header(await api.call('get', '/v1/nowhere', null), 'x-ratelimit-limit')).toBe(100);
    expect(lookups.mock.calls.length - before).toBe(1);
  });

  it('when the address budget cannot be looked up for a problem, then the problem is still the answer', async () => {
    const failedAuthPerAddress = new RateLimiterMemory({ keyPrefix: 'auth', points: 100, duration: 60 });
    const api = await startApi({
      rateLimits: {
        perKey: new RateLimiterMemory({ keyPrefix: 'key', points: 1000, duration: 1 }),
        perWorkspace: new RateLimiterMemory({ keyPrefix: 'ws', points: 10_000, duration: 60 }),
        failedAuthPerAddress,
        publicPerAddress: new RateLimiterMemory({ keyPrefix: 'public', points: 1000, duration: 60 }),
        publicPerWorkspace: new RateLimiterMemory({ keyPrefix: 'pubws', points: 1000, duration: 60 }),
        addressKey: addressKeyOf(defaultRateLimits),
      },
    });
    vi.spyOn(failedAuthPerAddress, 'get').mockRejectedValue(new Error('limiter store unreachable'));
    const res = await api.call('get', '/v1/nowhere', null);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'route_not_found' });
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    // An admitted key reports its own windows, which need no lookup of the address.
    expect(header(await api.call('get', '/v1/me'), 'x-ratelimit-limit')).toBe(1000);
  });
});

describe('default limits', () => {
  it('when nothing is configured, then the headers report the 100-per-second key window', async () => {
    const api = await startApi({});
    const res = await api.call('get', '/v1/me');
    expectEnvelopeHeaders(res);
    expect(header(res, 'x-ratelimit-limit')).toBe(100);
    expect(header(res, 'x-ratelimit-remaining')).toBe(99);
  });
});

describe('X-RateLimit-Reset', () => {
  /** The reset header as a number, after checking that it is a whole number of seconds. */
  const resetOf = (res: Response): number => {
    expect(res.headers['x-ratelimit-reset']).toMatch(/^[1-9][0-9]{9}$/);
    return header(res, 'x-ratelimit-reset');
  };
  /** Runs `send` and returns its response with the Unix seconds in which the window it reports must end. */
  const timed = async (send: () => Promise<Response>, windowSeconds: number) => {
    const before = Math.floor(Date.now() / 1000);
    const res = await send();
    const after = Math.ceil(Date.now() / 1000);
    return { res, earliest: before + windowSeconds, latest: after + windowSeconds };
  };

  it('when no key is known yet (404, 405, 403 https_required, 401), then it is the Unix second the address window ends', async () => {
    const api = await startApi({
      trustedProxies: ['127.0.0.1'],
      rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 10_000, failedAuthPerAddressPerMinute: 10 },
    });
    // Each from a fresh address, so each reports a whole, untouched one-minute window.
    const from = (address: string, method: 'get' | 'put', path: string, key: string | null = null) =>
      api.call(method, path, key).set('X-Forwarded-For', address);
    const cases: Array<[string, number, () => Promise<Response>]> = [
      ['404', 404, () => from('198.51.100.20', 'get', '/v1/nowhere')],
      ['405', 405, () => from('198.51.100.21', 'put', '/v1/forms/form_AAAAAAAAAAAAAAAAAAAAAAAA')],
      ['https_required', 403, () => from('198.51.100.22', 'get', '/v1/me', api.workspace.live_admin_key).set('X-Forwarded-Proto', 'http')],
      ['401', 401, () => from('198.51.100.23', 'get', '/v1/me', 'svc_live_wrong')],
    ];
    for (const [label, status, send] of cases) {
      const { res, earliest, latest } = await timed(send, 60);
      expect(res.status, label).toBe(status);
      expect(header(res, 'x-ratelimit-limit'), label).toBe(10);
      const reset = resetOf(res);
      expect(reset, label).toBeGreaterThanOrEqual(earliest);
      expect(reset, label).toBeLessThanOrEqual(latest);
    }
  });

  it('when the key is known, then it is the Unix second the reported window ends', async () => {
    const api = await startApi({ rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 10_000, failedAuthPerAddressPerMinute: 10 } });
    // The key's one-second window is the nearer to exhaustion (999 of 1000 left against 9,999 of 10,000).
    const { res, earliest, latest } = await timed(() => api.call('get', '/v1/me'), 1);
    expect(res.status).toBe(200);
    expect(header(res, 'x-ratelimit-limit')).toBe(1000);
    const reset = resetOf(res);
    expect(reset).toBeGreaterThanOrEqual(earliest - 1);
    expect(reset).toBeLessThanOrEqual(latest);
  });
});
