/**
 * OAuth as Enterprise partners operate it: revocation (RFC 7009) of access and refresh tokens, the environment the
 * user consents to (shown by GET /v1/me and enforced like a test or live key's), and confidential clients that
 * authenticate with a secret (HTTP Basic or client_secret) beside public PKCE clients.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import { authorizeOAuthClient } from '../../src/domain/oauth/authorize.js';
import { type OAuthClient, registerOAuthClient } from '../../src/domain/oauth/clients.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { storedRows } from '../support/stores.js';

const redirectUri = 'https://partner.example/callback';

let api: TestApi;
let publicClient: OAuthClient;
let serverClient: OAuthClient;
let serverSecret: string;

beforeAll(async () => {
  api = await createTestApi({
    plan: 'enterprise',
    // Refused secrets and tokens are 401s; the suite must not run into the per-address failed-auth budget.
    rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 100_000, failedAuthPerAddressPerMinute: 1000 },
  });
  publicClient = (await registerOAuthClient(api.services, { name: 'Partner app', redirectUris: [redirectUri] })).client;
  const registered = await registerOAuthClient(api.services, { name: 'Partner server', redirectUris: [redirectUri], confidential: true });
  serverClient = registered.client;
  serverSecret = registered.secret!;
});
afterAll(async () => {
  await api.close();
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

const post = (path: string, fields: Record<string, string>, authorization?: string) => {
  const request = api.call('post', path, null).type('form');
  if (authorization !== undefined) request.set('Authorization', authorization);
  return request.send(new URLSearchParams(fields).toString());
};

/** Consent (as the dashboard's screen gives it) and the code's exchange; `secret` as the body's client_secret. */
async function tokensFor(
  client: OAuthClient,
  options: { environment?: string; secret?: string; authorization?: string } = {},
): Promise<Schema<'OAuthToken'>> {
  const verifier = randomBytes(32).toString('base64url');
  const authorization = await authorizeOAuthClient(api.services, {
    workspaceId: api.workspace.workspace_id,
    clientId: client.id,
    scope: 'read read_write',
    redirectUri,
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    codeChallengeMethod: 'S256',
    environment: options.environment,
  });
  const code = new URL(authorization.redirectUrl).searchParams.get('code')!;
  const fields: Record<string, string> = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: client.id,
    code_verifier: verifier,
    ...(options.secret === undefined ? {} : { client_secret: options.secret }),
  };
  const res = await post('/v1/oauth/token', fields, options.authorization);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Schema<'OAuthToken'>;
}

const me = (token: string) => api.call('get', '/v1/me', token);

describe('POST /v1/oauth/revoke', () => {
  it('when a client revokes an access token, then it stops working at once and the refresh token still works', async () => {
    const tokens = await tokensFor(publicClient);
    expect((await me(tokens.access_token)).status).toBe(200);
    const res = await post('/v1/oauth/revoke', { token: tokens.access_token, token_type_hint: 'access_token', client_id: publicClient.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'oauth_revocation', request_id: res.headers['x-request-id'] });
    expect(res.headers['cache-control']).toBe('no-store');
    const refused = await me(tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ code: 'invalid_api_key', message: 'This OAuth access token has been revoked.' });
    const refreshed = await post('/v1/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: publicClient.id,
    });
    expect(refreshed.status).toBe(200);
  });

  it('when a client revokes a refresh token, even with the wrong hint, then the whole grant goes: its access token too', async () => {
    const tokens = await tokensFor(publicClient);
    const res = await post('/v1/oauth/revoke', {
      token: tokens.refresh_token,
      token_type_hint: 'access_token',
      client_id: publicClient.id,
    });
    expect(res.status).toBe(200);
    expect((await me(tokens.access_token)).status).toBe(401);
    const refreshed = await post('/v1/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: publicClient.id,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('when the token is unknown, already revoked, or another client’s, then 200 and nothing else is revoked', async () => {
    const unknown = await post('/v1/oauth/revoke', { token: 'svc_oat_NotAToken', client_id: publicClient.id });
    expect(unknown.status).toBe(200);
    const theirs = await tokensFor(serverClient, { secret: serverSecret });
    const other = await post('/v1/oauth/revoke', { token: theirs.access_token, client_id: publicClient.id });
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ object: 'oauth_revocation', request_id: other.headers['x-request-id'] });
    expect((await me(theirs.access_token)).status).toBe(200);
    const mine = await tokensFor(publicClient);
    for (let attempt = 0; attempt < 2; attempt++) {
      expect((await post('/v1/oauth/revoke', { token: mine.refresh_token, client_id: publicClient.id })).status).toBe(200);
    }
  });

  it('when a confidential client revokes without its secret or with a wrong one, then 401 invalid_client and the token still works', async () => {
    const tokens = await tokensFor(serverClient, { secret: serverSecret });
    const without = await post('/v1/oauth/revoke', { token: tokens.access_token, client_id: serverClient.id });
    expect(without.status).toBe(401);
    expect(without.body).toMatchObject({ code: 'invalid_client', error: 'invalid_client' });
    const wrong = await post(
      '/v1/oauth/revoke',
      { token: tokens.access_token, client_id: serverClient.id },
      basic(serverClient.id, 'svc_ocs_wrong'),
    );
    expect(wrong.status).toBe(401);
    expect((await me(tokens.access_token)).status).toBe(200);
    const right = await post(
      '/v1/oauth/revoke',
      { token: tokens.access_token, client_id: serverClient.id },
      basic(serverClient.id, serverSecret),
    );
    expect(right.status).toBe(200);
    expect((await me(tokens.access_token)).status).toBe(401);
  });

  it('when the request misses the token or names an unknown client or hint, then an OAuth problem', async () => {
    const missing = await post('/v1/oauth/revoke', { client_id: publicClient.id });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'invalid_request', code: 'invalid_parameters' });
    const hint = await post('/v1/oauth/revoke', { token: 'x', token_type_hint: 'id_token', client_id: publicClient.id });
    expect(hint.status).toBe(400);
    const unknownClient = await post('/v1/oauth/revoke', { token: 'x', client_id: 'no-such-client' });
    expect(unknownClient.status).toBe(401);
    expect(unknownClient.body).toMatchObject({ error: 'invalid_client' });
  });
});

describe('the environment chosen at consent', () => {
  it('when the user consents to test, then GET /v1/me says test and the token works in the sandbox only', async () => {
    const tokens = await tokensFor(publicClient, { environment: 'test' });
    const res = await me(tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ auth_type: 'oauth_token', environment: 'test' });
    const form = await api.call('post', '/v1/forms', tokens.access_token).send({ name: 'Sandbox form' });
    expect(form.status).toBe(201);
    expect(form.body.test).toBe(true);
    const live = await api.call('get', `/v1/forms/${form.body.id}`).expect(404);
    expect(live.body).toMatchObject({ code: 'resource_not_found' });
  });

  it('when no environment is chosen, then live; an unknown one is refused before anything is stored', async () => {
    const tokens = await tokensFor(publicClient);
    expect((await me(tokens.access_token)).body).toMatchObject({ environment: 'live' });
    const grants = async () => (await storedRows(api.store, 'SELECT COUNT(*) AS n FROM oauth_grants'))[0] as { n: number | string };
    const before = Number((await grants()).n);
    await expect(
      authorizeOAuthClient(api.services, {
        workspaceId: api.workspace.workspace_id,
        clientId: publicClient.id,
        scope: 'read',
        redirectUri,
        codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        codeChallengeMethod: 'S256',
        environment: 'staging',
      }),
    ).rejects.toMatchObject({ code: 'invalid_value' });
    expect(Number((await grants()).n)).toBe(before);
  });
});

describe('confidential clients', () => {
  it('when registered confidential, then the secret is shown once and stored only as a hash', async () => {
    expect(serverSecret).toMatch(/^svc_ocs_[0-9A-Za-z]{40}$/);
    const [row] = (await storedRows(api.store, 'SELECT * FROM oauth_clients WHERE id = ?', serverClient.id)) as Array<
      Record<string, unknown>
    >;
    expect(JSON.stringify(row)).not.toContain(serverSecret);
    expect(Buffer.from(row!.secret_hash as Buffer).equals(createHash('sha256').update(serverSecret).digest())).toBe(true);
  });

  it('when a confidential client exchanges a code with its secret by HTTP Basic or in the body, then it gets tokens', async () => {
    const byBasic = await tokensFor(serverClient, { authorization: basic(serverClient.id, serverSecret) });
    expect((await me(byBasic.access_token)).body).toMatchObject({ auth_type: 'oauth_token', name: 'Partner server' });
    await tokensFor(serverClient, { secret: serverSecret });
  });

  it('when a confidential client omits or mistypes its secret, or sends it twice, then it gets no tokens', async () => {
    const attempt = async (options: { secret?: string; authorization?: string }) => {
      const verifier = randomBytes(32).toString('base64url');
      const authorization = await authorizeOAuthClient(api.services, {
        workspaceId: api.workspace.workspace_id,
        clientId: serverClient.id,
        scope: 'read',
        redirectUri,
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        codeChallengeMethod: 'S256',
      });
      const fields: Record<string, string> = {
        grant_type: 'authorization_code',
        code: new URL(authorization.redirectUrl).searchParams.get('code')!,
        redirect_uri: redirectUri,
        client_id: serverClient.id,
        code_verifier: verifier,
        ...(options.secret === undefined ? {} : { client_secret: options.secret }),
      };
      return post('/v1/oauth/token', fields, options.authorization);
    };
    const without = await attempt({});
    expect(without.status).toBe(401);
    expect(without.body).toMatchObject({ error: 'invalid_client', code: 'invalid_client' });
    // One character changed, to one it is not (a secret ending in x was 1 in 62 runs mistyped into itself).
    const mistyped = `${serverSecret.slice(0, -1)}${serverSecret.endsWith('x') ? 'y' : 'x'}`;
    expect((await attempt({ secret: mistyped })).status).toBe(401);
    expect((await attempt({ authorization: basic('someone-else', serverSecret) })).status).toBe(401);
    expect((await attempt({ authorization: 'Bearer svc_live_x' })).status).toBe(401);
    const twice = await attempt({ secret: serverSecret, authorization: basic(serverClient.id, serverSecret) });
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ error: 'invalid_request' });
  });

  it('when a public client sends a secret, then 401: it has none', async () => {
    const res = await post('/v1/oauth/revoke', {
      token: 'x',
      client_id: publicClient.id,
      client_secret: 'svc_ocs_abcdefghijklmnopqrstuvwxyz',
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'invalid_client' });
  });
});
