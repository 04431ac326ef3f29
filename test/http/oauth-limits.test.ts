import { describe, expect, it } from 'vitest';
import { useWatchedApi } from '../support/http-checks.js';

const api = useWatchedApi({
  plan: 'enterprise',
  rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 100_000, failedAuthPerAddressPerMinute: 3 },
});

const guess = () =>
  api
    .call('post', '/v1/oauth/token', null)
    .type('form')
    .send(
      new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: `svc_ort_${'x'.repeat(40)}`,
        client_id: 'client_000000000000000000000000',
      }).toString(),
    );

describe('the token endpoint and the per-address budget', () => {
  it('when an address keeps presenting rejected tokens, then after the budget it gets 429 with Retry-After', async () => {
    for (let attempt = 0; attempt < 3; attempt++) expect([400, 401]).toContain((await guess()).status);
    const limited = await guess();
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
