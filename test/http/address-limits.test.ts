/**
 * The per-address limits (public requests, failed authentications) count a client under one name
 * (`addressLimitKey`): an IPv4 client by its address, an IPv4-mapped IPv6 address as the IPv4 client it maps, and an
 * IPv6 client by its /64 (`RATE_LIMIT_IPV6_PREFIX_LENGTH`), since a subscriber holds a whole /64 and could otherwise
 * send each request from another of its addresses. The clients here reach the app through a trusted proxy.
 */
import { describe, expect, it } from 'vitest';
import { createForm, formBody } from '../support/factories.js';
import { expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';

const api = useWatchedApi({
  trustedProxies: ['127.0.0.1'],
  rateLimits: { ...generousLimits, publicPerAddressPerMinute: 3, failedAuthPerAddressPerMinute: 2 },
});

describe('the public per-address limit', () => {
  it('when one client sends from many addresses of its IPv6 /64, then they share one budget; the next /64 has its own', async () => {
    const form = await createForm(api, formBody('Visited over IPv6'));
    const site = await createPublishableKey(api, { environment: 'live' });
    const visit = (address: string) => api.call('get', `/v1/public/forms/${form.id}`, site.value).set('X-Forwarded-For', address);
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:aaaa:bbbb:cccc:dddd']) {
      expect((await visit(address)).status).toBe(200);
    }
    const refused = await visit('2001:db8:1:2:ffff::9');
    expectProblem(refused, 429, 'rate_limit_error', 'rate_limited');
    expect(refused.body.message).toMatch(/^More than 3 public requests per minute from this address/);
    expect(refused.headers['x-ratelimit-limit']).toBe('3');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    const neighbour = await visit('2001:db8:1:3::1');
    expect(neighbour.status).toBe(200);
  });

  it('when an IPv4 client is also seen as its IPv4-mapped IPv6 address, then both are one budget', async () => {
    const form = await createForm(api, formBody('Visited over IPv4'));
    const site = await createPublishableKey(api, { environment: 'live' });
    const visit = (address: string) => api.call('get', `/v1/public/forms/${form.id}`, site.value).set('X-Forwarded-For', address);
    for (const address of ['198.51.100.7', '::ffff:198.51.100.7', '198.51.100.7']) expect((await visit(address)).status).toBe(200);
    expectProblem(await visit('::ffff:198.51.100.7'), 429, 'rate_limit_error', 'rate_limited');
    expect((await visit('198.51.100.8')).status).toBe(200);
  });

  it('when the proxy writes the client address with brackets or a port, then it is the same client as written plainly', async () => {
    const form = await createForm(api, formBody('Visited through a proxy that writes ports'));
    const site = await createPublishableKey(api, { environment: 'live' });
    const visit = (address: string) => api.call('get', `/v1/public/forms/${form.id}`, site.value).set('X-Forwarded-For', address);
    for (const address of ['[2001:db8:9:9::1]:443', '[2001:db8:9:9::2]', '2001:db8:9:9::3'])
      expect((await visit(address)).status).toBe(200);
    expectProblem(await visit('[2001:db8:9:9::4]:8443'), 429, 'rate_limit_error', 'rate_limited');
    for (const address of ['192.0.2.44:51234', '192.0.2.44:51235', '192.0.2.44']) expect((await visit(address)).status).toBe(200);
    expectProblem(await visit('192.0.2.44:60000'), 429, 'rate_limit_error', 'rate_limited');
  });
});

describe('the failed-authentication budget', () => {
  it('when one client guesses keys from many addresses of its IPv6 /64, then it is refused past one budget', async () => {
    const guess = (address: string) => api.call('get', '/v1/me', 'svc_live_not_a_key_at_all_0000000000').set('X-Forwarded-For', address);
    expectProblem(await guess('2001:db8:7:7::1'), 401, 'authentication_error', 'invalid_api_key');
    expectProblem(await guess('2001:db8:7:7::2'), 401, 'authentication_error', 'invalid_api_key');
    const refused = await guess('2001:db8:7:7:1:2:3:4');
    expectProblem(refused, 429, 'rate_limit_error', 'rate_limited');
    expect(refused.body.message).toMatch(/^Too many failed authentications from this address/);
    expect(refused.headers['x-ratelimit-limit']).toBe('2');
    // The budget is the /64's: a valid key from it is still served, and another /64 has a budget of its own.
    expect((await api.call('get', '/v1/me').set('X-Forwarded-For', '2001:db8:7:7::5')).status).toBe(200);
    expectProblem(await guess('2001:db8:7:8::1'), 401, 'authentication_error', 'invalid_api_key');
  });
});

describe('RATE_LIMIT_IPV6_PREFIX_LENGTH', () => {
  const narrow = useWatchedApi({
    trustedProxies: ['127.0.0.1'],
    rateLimits: { ...generousLimits, failedAuthPerAddressPerMinute: 1, ipv6PrefixLength: 128 },
  });
  const wide = useWatchedApi({
    trustedProxies: ['127.0.0.1'],
    rateLimits: { ...generousLimits, failedAuthPerAddressPerMinute: 1, ipv6PrefixLength: 48 },
  });

  it('when the prefix is 128, then each address has its own budget; when it is 48, then a whole /48 shares one', async () => {
    const guess = (app: typeof narrow, address: string) =>
      app.call('get', '/v1/me', 'svc_live_not_a_key_at_all_0000000000').set('X-Forwarded-For', address);
    expect((await guess(narrow, '2001:db8:5:1::1')).status).toBe(401);
    expect((await guess(narrow, '2001:db8:5:1::2')).status).toBe(401);
    expect((await guess(narrow, '2001:db8:5:1::2')).status).toBe(429);
    expect((await guess(wide, '2001:db8:5:1::1')).status).toBe(401);
    expect((await guess(wide, '2001:db8:5:ffff::1')).status).toBe(429);
    expect((await guess(wide, '2001:db8:6::1')).status).toBe(401);
  });
});
