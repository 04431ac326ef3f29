import { createHash, randomBytes } from 'node:crypto';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { authorizeOAuthClient } from '../../src/domain/oauth/authorize.js';
import { registerOAuthClient } from '../../src/domain/oauth/clients.js';
import { defaultRateLimits } from '../../src/http/documented-limits.js';
import { addressKeyOf } from '../../src/http/rate-limits.js';
import { createTestApi } from '../support/harness.js';
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

  it('when an address over its budget presents a valid authorization code, then it still gets its tokens; the next rejection is 429 again', async () => {
    for (let attempt = 0; attempt < 4; attempt++) await guess();
    const redirectUri = 'https://partner.example/callback';
    const client = (await registerOAuthClient(api.services, { name: 'Partner CRM', redirectUris: [redirectUri] })).client;
    const verifier = randomBytes(32).toString('base64url');
    const authorization = await authorizeOAuthClient(api.services, {
      workspaceId: api.workspace.workspace_id,
      clientId: client.id,
      scope: 'read',
      redirectUri,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      codeChallengeMethod: 'S256',
    });
    const exchanged = await api
      .call('post', '/v1/oauth/token', null)
      .type('form')
      .send(
        new URLSearchParams({
          grant_type: 'authorization_code',
          code: new URL(authorization.redirectUrl).searchParams.get('code')!,
          redirect_uri: redirectUri,
          client_id: client.id,
          code_verifier: verifier,
        }).toString(),
      );
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.access_token).toMatch(/^svc_oat_/);
    expect((await guess()).status).toBe(429);
  });
});

describe('the per-key limit for OAuth', () => {
  it('when a partner refreshes its access token, then the new token shares the grant’s request budget instead of getting a fresh one', async () => {
    const partner = await createTestApi({
      plan: 'enterprise',
      rateLimits: {
        perKey: new RateLimiterMemory({ keyPrefix: 'key', points: 3, duration: 60 }),
        perWorkspace: new RateLimiterMemory({ keyPrefix: 'ws', points: 1000, duration: 60 }),
        failedAuthPerAddress: new RateLimiterMemory({ keyPrefix: 'auth', points: 1000, duration: 60 }),
        publicPerAddress: new RateLimiterMemory({ keyPrefix: 'public', points: 1000, duration: 60 }),
        publicPerWorkspace: new RateLimiterMemory({ keyPrefix: 'pubws', points: 1000, duration: 60 }),
        addressKey: addressKeyOf(defaultRateLimits),
      },
    });
    try {
      const redirectUri = 'https://partner.example/callback';
      const client = (await registerOAuthClient(partner.services, { name: 'Partner CRM', redirectUris: [redirectUri] })).client;
      const verifier = randomBytes(32).toString('base64url');
      const authorization = await authorizeOAuthClient(partner.services, {
        workspaceId: partner.workspace.workspace_id,
        clientId: client.id,
        scope: 'read',
        redirectUri,
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        codeChallengeMethod: 'S256',
      });
      const token = (fields: Record<string, string>) =>
        partner.call('post', '/v1/oauth/token', null).type('form').send(new URLSearchParams(fields).toString());
      const first = await token({
        grant_type: 'authorization_code',
        code: new URL(authorization.redirectUrl).searchParams.get('code')!,
        redirect_uri: redirectUri,
        client_id: client.id,
        code_verifier: verifier,
      });
      expect(first.status).toBe(200);

      const statuses = [];
      for (let i = 0; i < 2; i++) statuses.push((await partner.call('get', '/v1/me', first.body.access_token)).status);
      const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.body.refresh_token, client_id: client.id });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.access_token).not.toBe(first.body.access_token);
      for (let i = 0; i < 2; i++) statuses.push((await partner.call('get', '/v1/me', refreshed.body.access_token)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);

      const limited = await partner.call('get', '/v1/me', refreshed.body.access_token);
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
      expect(limited.body.message).toMatch(/this key/);
    } finally {
      await partner.close();
    }
  });
});
