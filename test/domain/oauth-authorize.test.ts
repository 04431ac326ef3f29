import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AppError, isAppError } from '../../src/domain/errors.js';
import { noEvents } from '../../src/domain/events.js';
import { type AuthorizationRequest, authorizeOAuthClient } from '../../src/domain/oauth/authorize.js';
import { redirectUriProblem, registerOAuthClient } from '../../src/domain/oauth/clients.js';
import { hashToken } from '../../src/domain/oauth/secrets.js';
import type { Services } from '../../src/domain/services.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';

const redirectUri = 'https://partner.example/callback?tenant=7';
const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

let store: ReturnType<typeof createSqliteStore>;
let services: Services;
let request: AuthorizationRequest;

beforeEach(async () => {
  store = createSqliteStore(':memory:');
  services = {
    store,
    now: () => new Date('2031-01-01T00:00:00.000Z'),
    events: noEvents,
    webhookUrls: { allowPrivateAddresses: false, resolveHost: async () => [] },
  };
  const workspace = await bootstrapWorkspace(services, { name: 'Big Co', plan: 'enterprise' });
  const client = (await registerOAuthClient(services, { name: 'Partner', redirectUris: [redirectUri] })).client;
  request = {
    workspaceId: workspace.workspace_id,
    clientId: client.id,
    scope: 'read',
    redirectUri,
    codeChallenge: challenge,
    codeChallengeMethod: 'S256',
  };
});
afterEach(async () => {
  await store.close();
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

describe('authorizing a client', () => {
  it('when the user consents, then the redirect keeps the registered query and adds code and state, and the code expires in 10 minutes', async () => {
    const authorization = await authorizeOAuthClient(services, { ...request, state: 'xyz' });
    const redirect = new URL(authorization.redirectUrl);
    expect(`${redirect.origin}${redirect.pathname}`).toBe('https://partner.example/callback');
    expect(Object.fromEntries(redirect.searchParams)).toEqual({ tenant: '7', code: authorization.code, state: 'xyz' });
    expect(authorization.code).toMatch(/^svc_oac_[0-9A-Za-z]{40}$/);
    expect(authorization.expiresAt).toBe('2031-01-01T00:10:00.000Z');
  });

  it('when the workspace is not on the Enterprise plan, then 403 plan_required and nothing is stored', async () => {
    const business = await bootstrapWorkspace(services, { name: 'Small Co', plan: 'business' });
    const error = await refusal(authorizeOAuthClient(services, { ...request, workspaceId: business.workspace_id }));
    expect(error).toMatchObject({ status: 403, code: 'plan_required', details: { required_plan: 'enterprise' } });
    expect(error.message).toMatch(/enterprise plan only/);
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM oauth_grants').get()).toEqual({ n: 0 });
  });

  it('when the redirect URI is not exactly a registered one, then it is refused', async () => {
    for (const redirect of [
      'https://partner.example/callback',
      'https://partner.example/callback?tenant=7&x=1',
      'https://PARTNER.example/callback?tenant=7',
    ]) {
      expect(await refusal(authorizeOAuthClient(services, { ...request, redirectUri: redirect }))).toMatchObject({
        details: { errors: [expect.objectContaining({ pointer: '/redirect_uri' })] },
      });
    }
  });

  it('when the method is plain or the challenge is not an S256 value, then it is refused', async () => {
    expect((await refusal(authorizeOAuthClient(services, { ...request, codeChallengeMethod: 'plain' }))).message).toMatch(
      /plain is refused/,
    );
    expect((await refusal(authorizeOAuthClient(services, { ...request, codeChallenge: 'too-short' }))).details?.errors?.[0]?.pointer).toBe(
      '/code_challenge',
    );
  });

  it('when the client, workspace or scope is unknown, then it is refused naming the parameter', async () => {
    const pointers = await Promise.all([
      refusal(authorizeOAuthClient(services, { ...request, clientId: 'nobody' })),
      refusal(authorizeOAuthClient(services, { ...request, workspaceId: 'ws_000000000000000000000000' })),
      refusal(authorizeOAuthClient(services, { ...request, scope: 'read write' })),
    ]).then((errors) => errors.map((error) => error.details?.errors?.[0]?.pointer));
    expect(pointers).toEqual(['/client_id', '/workspace', '/scope']);
  });
});

describe('registering a client', () => {
  it('when redirect URIs are registered, then only absolute https URIs without fragment are accepted (http on loopback only)', () => {
    expect(redirectUriProblem('https://partner.example/cb')).toBeUndefined();
    expect(redirectUriProblem('http://127.0.0.1:8080/cb')).toBeUndefined();
    expect(redirectUriProblem('http://partner.example/cb')).toMatch(/https/);
    expect(redirectUriProblem('https://partner.example/cb#x')).toMatch(/fragment/);
    expect(redirectUriProblem('/cb')).toMatch(/absolute/);
    expect(redirectUriProblem('https://user:pw@partner.example/cb')).toMatch(/credentials/);
  });

  it('when a client is registered, then it gets a public client_id matching the contract and no secret', async () => {
    const { client, secret } = await registerOAuthClient(services, { name: '  CRM  ', redirectUris: ['https://crm.example/cb'] });
    expect(secret).toBeUndefined();
    expect(client).toEqual({
      id: expect.stringMatching(/^client_[0-9A-Za-z]{24}$/),
      name: 'CRM',
      redirectUris: ['https://crm.example/cb'],
      secretHash: null,
      createdAt: '2031-01-01T00:00:00.000Z',
    });
    expect(await store.oauth.getClient(client.id)).toEqual(client);
  });

  it('when a client is registered confidential, then its secret is returned once and only its hash is kept', async () => {
    const { client, secret } = await registerOAuthClient(services, {
      name: 'CRM server',
      redirectUris: ['https://crm.example/cb'],
      confidential: true,
    });
    expect(secret).toMatch(/^svc_ocs_[0-9A-Za-z]{40}$/);
    const stored = await store.oauth.getClient(client.id);
    expect(stored?.secretHash?.equals(hashToken(secret!))).toBe(true);
    expect(JSON.stringify(stored)).not.toContain(secret);
  });

  it('when the name is empty or no redirect URI is given, then every issue is reported', async () => {
    const error = await refusal(registerOAuthClient(services, { name: ' ', redirectUris: [] }));
    expect(error.details?.errors?.map((issue) => issue.pointer)).toEqual(['/name', '/redirect_uris']);
  });

  it('when a redirect URI is at the length limit, then it is accepted; one character more, then refused', () => {
    const uri = (length: number) => `https://partner.example/${'a'.repeat(length - 'https://partner.example/'.length)}`;
    expect(redirectUriProblem(uri(2048))).toBeUndefined();
    expect(redirectUriProblem(uri(2049))).toBe('must be at most 2048 characters');
  });

  it('when a redirect URI carries only a user or only a password, then it is refused too', () => {
    expect(redirectUriProblem('https://user@partner.example/cb')).toBe('must not contain credentials');
    expect(redirectUriProblem('https://:pw@partner.example/cb')).toBe('must not contain credentials');
  });

  it('when an http redirect URI names a loopback host, then it is accepted; any other host over http is refused', () => {
    expect(redirectUriProblem('http://localhost:8080/cb')).toBeUndefined();
    expect(redirectUriProblem('http://[::1]:8080/cb')).toBeUndefined();
    expect(redirectUriProblem('http://localhost.partner.example/cb')).toBe('must use https (http only on the loopback interface)');
    expect(redirectUriProblem('ftp://127.0.0.1/cb')).toBe('must use https (http only on the loopback interface)');
  });

  it('when the name has 200 characters and 10 redirect URIs are given, then the client is registered', async () => {
    const redirectUris = Array.from({ length: 10 }, (_, index) => `https://crm.example/cb/${index}`);
    const client = (await registerOAuthClient(services, { name: 'n'.repeat(200), redirectUris })).client;
    expect(client.redirectUris).toEqual(redirectUris);
  });

  it('when the name has 201 characters and 11 redirect URIs are given, then max_length and max_items are reported', async () => {
    const redirectUris = Array.from({ length: 11 }, (_, index) => `https://crm.example/cb/${index}`);
    const error = await refusal(registerOAuthClient(services, { name: 'n'.repeat(201), redirectUris }));
    expect(error.details?.errors?.map((issue) => [issue.pointer, issue.code])).toEqual([
      ['/name', 'max_length'],
      ['/redirect_uris', 'max_items'],
    ]);
  });

  it('when the name is blank and no redirect URI is given, then min_length and min_items are reported', async () => {
    const error = await refusal(registerOAuthClient(services, { name: ' ', redirectUris: [] }));
    expect(error.details?.errors?.map((issue) => issue.code)).toEqual(['min_length', 'min_items']);
  });

  it('when some redirect URIs are invalid, then each is reported at its index with the reason', async () => {
    const error = await refusal(
      registerOAuthClient(services, { name: 'CRM', redirectUris: ['https://crm.example/cb', 'http://crm.example/cb', '/cb'] }),
    );
    expect(error.details?.errors).toEqual([
      {
        location: 'body',
        pointer: '/redirect_uris/1',
        code: 'format',
        message: 'http://crm.example/cb must use https (http only on the loopback interface)',
      },
      { location: 'body', pointer: '/redirect_uris/2', code: 'format', message: '/cb must be an absolute URL' },
    ]);
  });
});
