/**
 * The rate-limit stages on their own, with a stand-in for the response: the Retry-After and X-RateLimit-*
 * values they compute, and what happens when the limiter's store fails rather than refuses.
 */
import type { Response } from 'express';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { addressLimitKey, hopAddress } from '../../src/http/client-address.js';
import { consumeRequest, limitAfterAuthentication, memoryRateLimits, type RateLimitPolicy } from '../../src/http/rate-limits.js';

const response = () => {
  const headers: Record<string, string> = {};
  const setHeader = (name: string, value: string) => {
    headers[name] = value;
  };
  const res = { headersSent: false, setHeader } as unknown as Response;
  return { res, headers };
};
const settings = { perKeyPerSecond: 100, perWorkspacePerMinute: 2, failedAuthPerAddressPerMinute: 1 };

describe('rate-limit stages', () => {
  it('when the workspace budget is spent, then 429 rate_limited with Retry-After the seconds left in its minute', async () => {
    const policy = memoryRateLimits(settings);
    await consumeRequest(policy, response().res, 'key_1', { id: 'ws_1', rateLimits: null });
    await consumeRequest(policy, response().res, 'key_1', { id: 'ws_1', rateLimits: null });
    const { res, headers } = response();
    await expect(consumeRequest(policy, res, 'key_1', { id: 'ws_1', rateLimits: null })).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
    });
    expect(Number(headers['Retry-After'])).toBeGreaterThan(50);
    expect(Number(headers['Retry-After'])).toBeLessThanOrEqual(60);
    expect(headers['X-RateLimit-Limit']).toBe('2');
    expect(headers['X-RateLimit-Remaining']).toBe('0');
  });

  it('when an address has not failed yet, then its window resets a minute from now, in whole Unix seconds', async () => {
    const { res, headers } = response();
    const before = Date.now();
    await limitAfterAuthentication(memoryRateLimits(settings), res, '203.0.113.7', { outcome: 'none' });
    const reset = Number(headers['X-RateLimit-Reset']);
    expect(reset).toBeGreaterThanOrEqual(Math.floor(before / 1000) + 60);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    expect(headers['X-RateLimit-Remaining']).toBe('1');
  });

  it('when the limiter store fails instead of refusing, then the failure propagates and is not answered as 429', async () => {
    const failing = new RateLimiterMemory({ points: 10, duration: 60 });
    const storeDown = new Error('store unavailable');
    failing.consume = async () => {
      throw storeDown;
    };
    const healthy = memoryRateLimits(settings);
    const policies: RateLimitPolicy[] = [
      { ...healthy, perKey: failing },
      { ...memoryRateLimits(settings), perWorkspace: failing },
    ];
    for (const policy of policies) {
      await expect(consumeRequest(policy, response().res, 'key_1', { id: 'ws_1', rateLimits: null })).rejects.toBe(storeDown);
    }
    const failingAuth = { ...healthy, failedAuthPerAddress: failing };
    await expect(limitAfterAuthentication(failingAuth, response().res, '203.0.113.7', { outcome: 'refused' })).rejects.toBe(storeDown);
  });
});

describe('the name a client address is counted under', () => {
  it.each([
    ['203.0.113.7', 64, '203.0.113.7'],
    ['::ffff:203.0.113.7', 64, '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', 64, '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::9', 64, '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 64, 'fe80::/64'],
    ['2001:db8:1:2:3:4:5:6', 48, '2001:db8:1::/48'],
    ['2001:db8:1:2:3:4:5:6', 128, '2001:db8:1:2:3:4:5:6/128'],
    ['', 64, ''],
    ['not an address', 64, 'not an address'],
  ])('when the address is %j and the IPv6 prefix %i, then it is counted as %j', (address, prefix, key) => {
    expect(addressLimitKey(address, prefix)).toBe(key);
  });
});

describe('a forwarded hop', () => {
  it.each([
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[::ffff:192.0.2.1]:80', '::ffff:192.0.2.1'],
    ['203.0.113.7:51234', '203.0.113.7'],
    ['203.0.113.7', '203.0.113.7'],
    ['2001:db8::1', '2001:db8::1'],
    ['2001:db8::1:443', '2001:db8::1:443'],
    ['[2001:db8::1]:not-a-port', '[2001:db8::1]:not-a-port'],
    ['unknown', 'unknown'],
  ])('when a proxy writes %j, then the client is %j', (hop, address) => {
    expect(hopAddress(hop)).toBe(address);
  });
});
