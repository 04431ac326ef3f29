import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import { authorizeOAuthClient } from '../../src/domain/oauth/authorize.js';
import { type OAuthClient, registerOAuthClient } from '../../src/domain/oauth/clients.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { storedRows } from '../support/stores.js';

const redirectUri = 'https://partner.example/callback';
const day = 24 * 3600 * 1000;

let api: TestApi;
let clock: Date;
let client: OAuthClient;

beforeAll(async () => {
  clock = new Date('2031-03-01T09:00:00.000Z');
  api = await createTestApi({
    plan: 'enterprise',
    now: () => clock,
    // Revoked and expired tokens are 401s; the suite must not run into the per-address failed-auth budget.
    rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 100_000, failedAuthPerAddressPerMinute: 1000 },
  });
  client = (await registerOAuthClient(api.services, { name: 'Partner CRM', redirectUris: [redirectUri] })).client;
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => {
  clock = new Date(clock.getTime() + 1000);
});

const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

/** A fresh PKCE pair, as a client makes one per authorization. */
function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The consent screen's part: authorize and read the code from the redirect, as the client's callback would. */
async function authorize(scope = 'read read_write', options: { clientId?: string; workspaceId?: string; state?: string } = {}) {
  const { verifier, challenge } = pkce();
  const authorization = await authorizeOAuthClient(api.services, {
    workspaceId: options.workspaceId ?? api.workspace.workspace_id,
    clientId: options.clientId ?? client.id,
    scope,
    redirectUri,
    codeChallenge: challenge,
    codeChallengeMethod: 'S256',
    state: options.state,
  });
  const redirect = new URL(authorization.redirectUrl);
  return { code: redirect.searchParams.get('code')!, state: redirect.searchParams.get('state'), redirect, verifier };
}

const tokenRequest = (fields: Record<string, string>) =>
  api.call('post', '/v1/oauth/token', null).type('form').send(new URLSearchParams(fields).toString());

const exchange = (code: string, verifier: string, overrides: Record<string, string> = {}) =>
  tokenRequest({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: client.id,
    code_verifier: verifier,
    ...overrides,
  });

const refresh = (refreshToken: string, clientId = client.id) =>
  tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

async function tokensFor(scope = 'read read_write') {
  const { code, verifier } = await authorize(scope);
  const res = await exchange(code, verifier);
  expect(res.status).toBe(200);
  return res.body as Schema<'OAuthToken'>;
}

function expectOAuthProblem(
  res: { status: number; body: Record<string, unknown>; headers: Record<string, string> },
  status: number,
  error: string,
  code = error,
) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ code, error, error_description: res.body.message, request_id: res.headers['x-request-id'] });
}

describe('authorization code exchange', () => {
  it('when the client exchanges a fresh code with its verifier, then it gets an access and a refresh token that no cache may keep', async () => {
    const { code, state, verifier } = await authorize('read read_write', { state: 'af0ifjsldkj' });
    expect(state).toBe('af0ifjsldkj');
    const res = await exchange(code, verifier);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^svc_oat_[0-9A-Za-z]{40}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^svc_ort_[0-9A-Za-z]{40}$/),
      scope: 'read read_write',
      request_id: res.headers['x-request-id'],
    });
  });

  it('when the code is used a second time, then 400 invalid_grant and the tokens of the first exchange are revoked', async () => {
    const { code, verifier } = await authorize();
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    expect((await api.call('get', '/v1/me', first.body.access_token)).status).toBe(200);

    const again = await exchange(code, verifier);
    expectOAuthProblem(again, 400, 'invalid_grant');
    expect(again.body.message).toMatch(/already used/);
    expect((await api.call('get', '/v1/me', first.body.access_token)).status).toBe(401);
    expectOAuthProblem(await refresh(first.body.refresh_token), 400, 'invalid_grant');
  });

  it('when the code_verifier does not hash to the challenge, then 400 invalid_grant, and the code is used up', async () => {
    const { code, verifier } = await authorize();
    const res = await exchange(code, pkce().verifier);
    expectOAuthProblem(res, 400, 'invalid_grant');
    expect(res.body.message).toMatch(/code_verifier/);
    expect((await exchange(code, verifier)).status).toBe(400);
  });

  it('when redirect_uri differs from the authorization request, even by a trailing slash, then 400 invalid_grant', async () => {
    const { code, verifier } = await authorize();
    const res = await exchange(code, verifier, { redirect_uri: `${redirectUri}/` });
    expectOAuthProblem(res, 400, 'invalid_grant');
    expect(res.body.message).toMatch(/redirect_uri/);
  });

  it('when the code is more than 10 minutes old, then 400 invalid_grant', async () => {
    const { code, verifier } = await authorize();
    advance(10 * 60 * 1000 + 1);
    expectOAuthProblem(await exchange(code, verifier), 400, 'invalid_grant');
  });

  it('when a code is just under 10 minutes old, then it still works', async () => {
    const { code, verifier } = await authorize();
    advance(10 * 60 * 1000 - 1000);
    expect((await exchange(code, verifier)).status).toBe(200);
  });

  it('when another registered client presents the code, then 400 invalid_grant', async () => {
    const other = (await registerOAuthClient(api.services, { name: 'Other app', redirectUris: [redirectUri] })).client;
    const { code, verifier } = await authorize();
    expectOAuthProblem(await exchange(code, verifier, { client_id: other.id }), 400, 'invalid_grant');
  });

  it('when two exchanges of the same code race, then at most one gets tokens, and those are revoked if the reuse came first', async () => {
    // The second redemption of a code revokes the grant (RFC 6749 section 4.1.2). When it lands after the first
    // exchange's tokens, they are revoked; when it lands between the first's redemption and its tokens, the first
    // is refused too. Either way the code never yields two sets of tokens, nor a usable one after its reuse.
    for (let race = 0; race < 5; race++) {
      const { code, verifier } = await authorize();
      const responses = await Promise.all([exchange(code, verifier), exchange(code, verifier)]);
      const statuses = responses.map((res) => res.status).sort();
      expect([
        [200, 400],
        [400, 400],
      ]).toContainEqual(statuses);
      for (const refused of responses.filter((res) => res.status === 400)) expectOAuthProblem(refused, 400, 'invalid_grant');
      const issued = responses.find((res) => res.status === 200);
      if (issued) {
        const token = (issued.body as { access_token: string }).access_token;
        expect((await api.call('get', '/v1/forms', null).set('Authorization', `Bearer ${token}`)).status).toBe(401);
      }
    }
  });

  it('when the code was never issued, then 400 invalid_grant', async () => {
    expectOAuthProblem(await exchange('svc_oac_0000000000000000000000000000000000000000', pkce().verifier), 400, 'invalid_grant');
    expectOAuthProblem(await exchange('SplxlOBeZQQYbYS6WxSbIA', pkce().verifier), 400, 'invalid_grant');
  });
});

describe('token endpoint errors', () => {
  it('when client_id is not registered, then 401 invalid_client', async () => {
    const { code, verifier } = await authorize();
    const res = await exchange(code, verifier, { client_id: 'acme-crm-connector' });
    expectOAuthProblem(res, 401, 'invalid_client');
    expect(res.body.type).toBe('authentication_error');
    expectOAuthProblem(await refresh('svc_ort_0000000000000000000000000000000000000000', 'unknown-client'), 401, 'invalid_client');
  });

  it('when grant_type is neither authorization_code nor refresh_token, then 400 unsupported_grant_type', async () => {
    const res = await tokenRequest({ grant_type: 'password', username: 'a', password: 'b', client_id: client.id });
    expectOAuthProblem(res, 400, 'unsupported_grant_type');
    expect(res.body.message).toBe('grant_type must be authorization_code or refresh_token.');
  });

  it('when a required parameter is missing, then 400 invalid_request with code invalid_parameters naming it', async () => {
    const { code } = await authorize();
    const res = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.id });
    expectOAuthProblem(res, 400, 'invalid_request', 'invalid_parameters');
    expect(res.body.details).toEqual({
      errors: [expect.objectContaining({ location: 'body', pointer: '/code_verifier', code: 'required' })],
    });
  });

  it('when grant_type is missing or empty, then 400 invalid_request pointing at grant_type', async () => {
    const requests: Array<Record<string, string>> = [{ client_id: client.id }, { grant_type: '', client_id: client.id }];
    for (const fields of requests) {
      const res = await tokenRequest(fields);
      expectOAuthProblem(res, 400, 'invalid_request', 'invalid_parameters');
      expect(res.body.details).toEqual({
        errors: [{ location: 'body', pointer: '/grant_type', code: 'required', message: 'is required' }],
      });
    }
  });

  it('when a parameter is sent twice, then 400 invalid_request (RFC 6749 section 3.2)', async () => {
    const res = await api
      .call('post', '/v1/oauth/token', null)
      .type('form')
      .send(
        `grant_type=refresh_token&grant_type=refresh_token&client_id=${client.id}&refresh_token=svc_ort_0000000000000000000000000000000000000000`,
      );
    expectOAuthProblem(res, 400, 'invalid_request', 'invalid_parameters');
  });

  it('when the body is empty, then 400 invalid_request', async () => {
    const res = await api.call('post', '/v1/oauth/token', null).type('form').send('');
    expectOAuthProblem(res, 400, 'invalid_request', 'invalid_parameters');
  });

  it('when the body is JSON, then 415 with the usual problem and no RFC 6749 members', async () => {
    const res = await api.call('post', '/v1/oauth/token', null).send({ grant_type: 'refresh_token' });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
    expect(res.body).not.toHaveProperty('error');
  });

  it('when an unknown parameter is sent, then 400 invalid_request naming it', async () => {
    const res = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: 'svc_ort_0000000000000000000000000000000000000000',
      client_id: client.id,
      scope: 'admin',
    });
    expectOAuthProblem(res, 400, 'invalid_request', 'invalid_parameters');
    expect(res.body.details.errors).toEqual([expect.objectContaining({ pointer: '/scope', code: 'additional_property' })]);
  });
});

describe('calling the API with an access token', () => {
  it('when GET /v1/me is called with an access token, then it describes the token, its application and the highest granted scope', async () => {
    const tokens = await tokensFor('read read_write');
    const res = await api.call('get', '/v1/me', tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^oat_[0-9A-Za-z]{24}$/),
      object: 'me',
      auth_type: 'oauth_token',
      name: 'Partner CRM',
      environment: 'live',
      scope: 'read_write',
      attachment: { type: 'workspace' },
      expires_at: new Date(clock.getTime() + 3600 * 1000).toISOString(),
      // The consent was recorded without a member, as the operator's command records it.
      member: null,
      workspace: { id: api.workspace.workspace_id, object: 'workspace', name: 'Acme', plan: 'enterprise' },
      request_id: res.headers['x-request-id'],
    });
  });

  it('when a read_write grant creates a folder, then 201', async () => {
    const tokens = await tokensFor('read_write');
    const res = await api.call('post', '/v1/folders', tokens.access_token).send({ name: 'Made by the partner' });
    expect(res.status).toBe(201);
  });

  it('when a read-only grant tries to create a folder, then 403 insufficient_scope, while reading works', async () => {
    const tokens = await tokensFor('read');
    expect(tokens.scope).toBe('read');
    const res = await api.call('post', '/v1/folders', tokens.access_token).send({ name: 'Not allowed' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope', details: { required_scope: 'read_write', granted_scope: 'read' } });
    expect((await api.call('get', '/v1/folders', tokens.access_token)).status).toBe(200);
  });

  it('when an admin grant deletes a folder, then the audit log names the token and the application', async () => {
    const tokens = await tokensFor('admin read');
    expect(tokens.scope).toBe('read admin');
    const me = await api.call('get', '/v1/me', tokens.access_token);
    const folder = await api.call('post', '/v1/folders', tokens.access_token).send({ name: 'Short-lived' });
    expect((await api.call('delete', `/v1/folders/${folder.body.id}`, tokens.access_token)).status).toBe(200);
    const log = await api.call('get', '/v1/audit_events?type=folder.deleted');
    expect(log.body.data[0]).toMatchObject({ actor: { type: 'oauth_token', id: me.body.id, name: 'Partner CRM' } });
  });

  it('when an admin grant tries to create an API key, then 403 api_key_required and no key is created', async () => {
    const tokens = await tokensFor('admin');
    const before = await api.call('get', '/v1/api_keys?limit=100');
    const res = await api.call('post', '/v1/api_keys', tokens.access_token).send({ name: 'forever', environment: 'live', scope: 'admin' });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: 'permission_error', code: 'api_key_required', request_id: res.headers['x-request-id'] });
    expect(res.body.message).toMatch(/OAuth access tokens of applications cannot create API keys: a key would outlive the grant/);
    const after = await api.call('get', '/v1/api_keys?limit=100');
    expect(after.body.data.map((key: { id: string }) => key.id)).toEqual(before.body.data.map((key: { id: string }) => key.id));
    expect((await api.call('get', '/v1/api_keys', tokens.access_token)).status).toBe(200);
  });

  it('when the access token is more than an hour old, then 401 invalid_api_key, and a refresh gives a working one', async () => {
    const tokens = await tokensFor();
    advance(3600 * 1000);
    const res = await api.call('get', '/v1/me', tokens.access_token);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'invalid_api_key', message: expect.stringMatching(/expired/) });
    const renewed = await refresh(tokens.refresh_token);
    expect(renewed.status).toBe(200);
    expect((await api.call('get', '/v1/me', renewed.body.access_token)).status).toBe(200);
  });

  it('when an access token was never issued, then 401 invalid_api_key', async () => {
    const res = await api.call('get', '/v1/me', 'svc_oat_0000000000000000000000000000000000000000');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_api_key');
  });

  it('when the workspace leaves the Enterprise plan, then its tokens stop working and cannot be refreshed', async () => {
    const ws = await api.otherWorkspace('enterprise');
    const { code, verifier } = await authorize('read', { workspaceId: ws.workspace_id });
    const tokens = (await exchange(code, verifier)).body;
    await storedRows(api.store, `UPDATE workspaces SET plan = 'business' WHERE id = ?`, ws.workspace_id);
    expect((await api.call('get', '/v1/me', tokens.access_token)).status).toBe(401);
    expectOAuthProblem(await refresh(tokens.refresh_token), 400, 'invalid_grant');
  });
});

describe('refresh token rotation', () => {
  it('when a refresh token is used, then it returns new tokens, and the new refresh token is the one that works next', async () => {
    const first = await tokensFor('read read_write');
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.headers['cache-control']).toBe('no-store');
    expect(second.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read read_write' });
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.access_token).not.toBe(first.access_token);
    const third = await refresh(second.body.refresh_token);
    expect(third.status).toBe(200);
    expect((await api.call('get', '/v1/me', third.body.access_token)).status).toBe(200);
  });

  it('when a used refresh token is presented again, then 400 invalid_grant and every token of the grant is revoked', async () => {
    const first = await tokensFor();
    const second = (await refresh(first.refresh_token)).body;
    const reuse = await refresh(first.refresh_token);
    expectOAuthProblem(reuse, 400, 'invalid_grant');
    expect(reuse.body.message).toMatch(/already used/);
    // The thief and the client hold the same family: all of it goes.
    expectOAuthProblem(await refresh(second.refresh_token), 400, 'invalid_grant');
    for (const accessToken of [first.access_token, second.access_token]) {
      const me = await api.call('get', '/v1/me', accessToken);
      expect(me.status).toBe(401);
      expect(me.body.message).toMatch(/revoked/);
    }
  });

  it('when two refreshes with the same token race, then one gets tokens, the other is a reuse, and the grant is revoked', async () => {
    const tokens = await tokensFor();
    const results = await Promise.all([refresh(tokens.refresh_token), refresh(tokens.refresh_token)]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 400]);
    const winner = results.find((res) => res.status === 200)!;
    expect((await api.call('get', '/v1/me', winner.body.access_token)).status).toBe(401);
  });

  it('when one grant is revoked for reuse, then the other grants of the same client keep working', async () => {
    const victim = await tokensFor();
    const bystander = await tokensFor();
    await refresh(victim.refresh_token);
    await refresh(victim.refresh_token);
    expect((await api.call('get', '/v1/me', bystander.access_token)).status).toBe(200);
    expect((await refresh(bystander.refresh_token)).status).toBe(200);
  });

  it('when another client presents the refresh token, then 400 invalid_grant and the grant is left alone', async () => {
    const other = (await registerOAuthClient(api.services, { name: 'Other app', redirectUris: [redirectUri] })).client;
    const tokens = await tokensFor();
    expectOAuthProblem(await refresh(tokens.refresh_token, other.id), 400, 'invalid_grant');
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });

  it('when the refresh token is more than 90 days old, then 400 invalid_grant', async () => {
    const tokens = await tokensFor();
    advance(90 * day);
    expectOAuthProblem(await refresh(tokens.refresh_token), 400, 'invalid_grant');
  });

  it('when the refresh token is 89 days old, then it still works', async () => {
    const tokens = await tokensFor();
    advance(89 * day);
    expect((await refresh(tokens.refresh_token)).status).toBe(200);
  });
});

describe('storage', () => {
  it('when tokens and codes are issued, then none of them is stored, only their hashes', async () => {
    const { code, verifier } = await authorize();
    const tokens = (await exchange(code, verifier)).body as Schema<'OAuthToken'>;
    const tables = ['oauth_authorization_codes', 'oauth_access_tokens', 'oauth_refresh_tokens', 'oauth_grants'];
    const stored = await Promise.all(tables.map((table) => storedRows(api.store, `SELECT * FROM ${table}`)));
    const dump = JSON.stringify(stored.flat().map((row) => Object.values(row).map(String)));
    for (const secret of [code, tokens.access_token, tokens.refresh_token, verifier]) expect(dump).not.toContain(secret);
    const sha = createHash('sha256').update(tokens.access_token).digest();
    expect(await storedRows(api.store, 'SELECT id FROM oauth_access_tokens WHERE token_hash = ?', sha)).toHaveLength(1);
  });
});

describe('idempotency across a token refresh', () => {
  it('when a POST is retried with the same Idempotency-Key after the access token was refreshed, then the first response is replayed', async () => {
    const first = await tokensFor('read_write');
    const create = (token: string) =>
      api
        .call('post', '/v1/forms', null)
        .set('Authorization', `Bearer ${token}`)
        .set('Idempotency-Key', 'partner-retry-1')
        .send({ name: 'Made once' });
    const original = await create(first.access_token);
    expect(original.status).toBe(201);
    const refreshed = await refresh(first.refresh_token);
    expect(refreshed.status).toBe(200);
    const retry = await create(refreshed.body.access_token);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(original.body.id);
  });
});
