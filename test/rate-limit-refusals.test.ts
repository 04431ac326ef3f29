/**
 * What a refusal of the per-key and per-workspace limits (src/http/rate-limits.ts) says and keeps: `Retry-After`
 * is the limiter's time left rounded up to whole seconds, and a request the workspace refuses gives its key the
 * point back. The limiters read `Date.now()`, which is set here so the time left is known to the millisecond.
 */
import type { Response } from 'express';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAppError } from '../src/domain/errors.js';
import { consumeRequest, memoryRateLimits } from '../src/http/rate-limits.js';

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
