/**
 * What a refusal of the per-key and per-workspace limits (src/http/rate-limits.ts) says and keeps: `Retry-After`
 * is the limiter's time left rounded up to whole seconds, and a request the workspace refuses gives its key the
 * point back. The limiters read `Date.now()`, which is set here so the time left is known to the millisecond.
 */
import type { Response } from 'express';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAppError } from '../src/domain/errors.js';
import { consumeRequest, memoryRateLimits, type WorkspaceBudget } from '../src/http/rate-limits.js';
import type { WorkspaceRateLimits } from '../src/store/types.js';

/** The few parts of a response the limits touch: the headers they set. */
function fakeResponse() {
  const headers: Record<string, string> = {};
  const res = {
    headersSent: false,
    setHeader(name: string, value: string) {
      headers[name] = value;
    },
  } as unknown as Response;
  return { res, headers };
}

const workspace = { id: 'ws_refusals', rateLimits: null };

/** Runs one request's accounting; returns the refusal's status and `Retry-After`, or undefined when admitted. */
async function request(policy: ReturnType<typeof memoryRateLimits>, key: string) {
  const { res, headers } = fakeResponse();
  try {
    await consumeRequest(policy, res, key, workspace);
    return undefined;
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { status: error.status, code: error.code, retryAfter: headers['Retry-After'], details: error.details };
  }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-01-01T00:00:00.000Z') });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('consumeRequest refusals', () => {
  it('when the workspace window refuses with 59.6 s left, then Retry-After is 60, rounded up, in the header and the details', async () => {
    const policy = memoryRateLimits({ perKeyPerSecond: 10, perWorkspacePerMinute: 1, failedAuthPerAddressPerMinute: 10 });
    expect(await request(policy, 'key_a')).toBeUndefined();
    vi.setSystemTime(Date.now() + 400);
    const refused = await request(policy, 'key_a');
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: '60', details: { retry_after_seconds: 60 } });
  });

  it('when the workspace refuses a key that had budget left, then the key keeps that budget: its point comes back', async () => {
    const policy = memoryRateLimits({ perKeyPerSecond: 5, perWorkspacePerMinute: 1, failedAuthPerAddressPerMinute: 10 });
    expect(await request(policy, 'key_a')).toBeUndefined();
    for (let attempt = 0; attempt < 3; attempt++) expect(await request(policy, 'key_a')).toMatchObject({ status: 429 });
    expect((await policy.perKey.get('key_a'))?.consumedPoints).toBe(1);
  });

  it('when the workspace refuses one key, then another key of it is refused by the workspace, not by its own window', async () => {
    const policy = memoryRateLimits({ perKeyPerSecond: 5, perWorkspacePerMinute: 1, failedAuthPerAddressPerMinute: 10 });
    await request(policy, 'key_a');
    expect((await request(policy, 'key_b'))?.retryAfter).toBe('60');
    expect((await policy.perKey.get('key_b'))?.consumedPoints).toBe(0);
  });
});

describe('a workspace with limits of its own', () => {
  const standard = { perKeyPerSecond: 10, perWorkspacePerMinute: 100, failedAuthPerAddressPerMinute: 10 };

  /** One request of `key` in a workspace whose operator set `rateLimits`; its refusal and the headers reported. */
  async function requestIn(policy: ReturnType<typeof memoryRateLimits>, workspaceId: string, rateLimits: WorkspaceRateLimits, key: string) {
    const { res, headers } = fakeResponse();
    try {
      await consumeRequest(policy, res, key, { id: workspaceId, rateLimits });
      return { headers };
    } catch (error) {
      if (!isAppError(error)) throw error;
      return { headers, refused: { status: error.status, message: error.message } };
    }
  }

  it('when its key limit is below the standard one, then a key is refused past it, with that limit in the headers', async () => {
    const policy = memoryRateLimits(standard);
    const own = { perKeyPerSecond: 2, perWorkspacePerMinute: 100 };
    expect((await requestIn(policy, 'ws_own', own, 'key_a')).headers).toMatchObject({
      'X-RateLimit-Limit': '2',
      'X-RateLimit-Remaining': '1',
    });
    expect((await requestIn(policy, 'ws_own', own, 'key_a')).refused).toBeUndefined();
    expect((await requestIn(policy, 'ws_own', own, 'key_a')).refused).toEqual({
      status: 429,
      message: 'More than 2 requests per second with this key; retry after 1 second.',
    });
  });

  it('when two workspaces have key limits of different sizes, then each is held to its own', async () => {
    const policy = memoryRateLimits(standard);
    const small = { perKeyPerSecond: 1, perWorkspacePerMinute: 100 };
    const large = { perKeyPerSecond: 3, perWorkspacePerMinute: 100 };
    expect((await requestIn(policy, 'ws_small', small, 'key_s')).refused).toBeUndefined();
    expect((await requestIn(policy, 'ws_small', small, 'key_s')).refused?.status).toBe(429);
    for (let attempt = 0; attempt < 3; attempt++) expect((await requestIn(policy, 'ws_large', large, 'key_l')).refused).toBeUndefined();
    expect((await requestIn(policy, 'ws_large', large, 'key_l')).refused?.status).toBe(429);
  });

  it('when its workspace limit differs from the standard one, then it is counted per minute: Retry-After is the minute left', async () => {
    const policy = memoryRateLimits(standard);
    const own = { perKeyPerSecond: 10, perWorkspacePerMinute: 2 };
    await requestIn(policy, 'ws_own', own, 'key_a');
    await requestIn(policy, 'ws_own', own, 'key_b');
    vi.setSystemTime(Date.now() + 1500);
    const refused = await requestIn(policy, 'ws_own', own, 'key_c');
    expect(refused.refused).toEqual({ status: 429, message: 'More than 2 requests per minute in this workspace; retry after 59 seconds.' });
    expect(refused.headers['Retry-After']).toBe('59');
  });
});

describe("a workspace's publishable keys", () => {
  const standard = { perKeyPerSecond: 10, perWorkspacePerMinute: 100, publicPerWorkspacePerMinute: 3, failedAuthPerAddressPerMinute: 10 };

  /** One request of `key` spending the workspace's `budget`; its refusal's message, or undefined when admitted. */
  async function spend(
    policy: ReturnType<typeof memoryRateLimits>,
    key: string,
    budget: WorkspaceBudget,
    rateLimits: WorkspaceRateLimits | null,
  ) {
    const { res, headers } = fakeResponse();
    try {
      await consumeRequest(policy, res, key, { id: 'ws_visited', rateLimits }, budget);
      return { headers };
    } catch (error) {
      if (!isAppError(error)) throw error;
      return { headers, refused: error.message };
    }
  }

  it("when they spend their workspace budget, then they are refused with its size and the seconds left; the secret keys' budget is untouched", async () => {
    const policy = memoryRateLimits(standard);
    for (let count = 0; count < 3; count++) expect((await spend(policy, 'pk_site', 'publishable', null)).refused).toBeUndefined();
    vi.setSystemTime(Date.now() + 2500);
    const refused = await spend(policy, 'pk_site', 'publishable', null);
    expect(refused.refused).toBe("More than 3 requests per minute with this workspace's publishable keys; retry after 58 seconds.");
    expect(refused.headers).toMatchObject({ 'X-RateLimit-Limit': '3', 'X-RateLimit-Remaining': '0', 'Retry-After': '58' });
    const owner = await spend(policy, 'key_owner', 'secret', null);
    expect(owner.refused).toBeUndefined();
    expect(owner.headers).toMatchObject({ 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '9' });
    expect((await policy.perWorkspace.get('ws_visited'))?.consumedPoints).toBe(1);
  });

  it('when an operator gave the workspace limits of its own, then its publishable budget is its own per-workspace limit, apart from the secret one', async () => {
    const policy = memoryRateLimits(standard);
    const own = { perKeyPerSecond: 10, perWorkspacePerMinute: 5 };
    for (let count = 0; count < 5; count++) expect((await spend(policy, 'pk_site', 'publishable', own)).refused).toBeUndefined();
    expect((await spend(policy, 'pk_site', 'publishable', own)).refused).toMatch(
      /^More than 5 requests per minute with this workspace's publishable keys/,
    );
    for (let count = 0; count < 5; count++) expect((await spend(policy, 'key_owner', 'secret', own)).refused).toBeUndefined();
    expect((await spend(policy, 'key_owner', 'secret', own)).refused).toMatch(/^More than 5 requests per minute in this workspace/);
  });

  it("when an operator's limit for the workspace is below the standard publishable budget, then the visitors keep the standard one", async () => {
    const policy = memoryRateLimits(standard);
    const heldBack = { perKeyPerSecond: 10, perWorkspacePerMinute: 1 };
    for (let count = 0; count < 3; count++) expect((await spend(policy, 'pk_site', 'publishable', heldBack)).refused).toBeUndefined();
    expect((await spend(policy, 'pk_site', 'publishable', heldBack)).refused).toMatch(
      /^More than 3 requests per minute with this workspace's publishable keys/,
    );
    expect((await spend(policy, 'key_owner', 'secret', heldBack)).refused).toBeUndefined();
    expect((await spend(policy, 'key_owner', 'secret', heldBack)).refused).toMatch(/^More than 1 request/);
  });
});

describe('a response already under way', () => {
  it('when the headers have been sent, then the request is still counted and no header is added', async () => {
    const policy = memoryRateLimits({ perKeyPerSecond: 5, perWorkspacePerMinute: 100, failedAuthPerAddressPerMinute: 10 });
    const { res, headers } = fakeResponse();
    (res as { headersSent: boolean }).headersSent = true;
    await consumeRequest(policy, res, 'key_a', workspace);
    expect(headers).toEqual({});
    expect((await policy.perKey.get('key_a'))?.consumedPoints).toBe(1);
  });
});
