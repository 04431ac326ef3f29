/**
 * Each operation's security requirement says which credentials it takes, and the server does what it says. Walked
 * from the document: an operation that lists an OAuth scheme never refuses an access token for being one, an
 * operation that does not list one refuses it with 403 `api_key_required` (whatever the token's scope), and every
 * authenticated operation lists the API key scheme (the server takes API keys on all of them). The public operations,
 * which take a publishable key only, refuse a token as they refuse a secret key: 403 `secret_key_not_allowed`.
 * One operation takes tokens of one client only: createApiKey lists OAuth for the service's own dashboard, and refuses
 * every partner application's token with 403 `api_key_required`, as its description says.
 */
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorizeOAuthClient } from '../../src/domain/oauth/authorize.js';
import { registerOAuthClient } from '../../src/domain/oauth/clients.js';
import { loadContract } from '../../src/http/contract-document.js';
import { absentId, generousLimits, useWatchedApi } from '../support/http-checks.js';

const { document, operations } = loadContract();
const authenticated = operations.filter((operation) => operation.authenticated);
const schemes = (document.components as unknown as { securitySchemes: Record<string, { type?: string; $ref?: string }> }).securitySchemes;

const api = useWatchedApi({ plan: 'enterprise', rateLimits: generousLimits });
let accessToken: string;

/** An access token with every scope, from the authorization-code flow with PKCE that partners use. */
beforeAll(async () => {
  const redirectUri = 'https://partner.example/callback';
  const { client } = await registerOAuthClient(api.services, { name: 'Partner CRM', redirectUris: [redirectUri] });
  const verifier = randomBytes(32).toString('base64url');
  const authorization = await authorizeOAuthClient(api.services, {
    workspaceId: api.workspace.workspace_id,
    clientId: client.id,
    scope: 'read read_write admin',
    redirectUri,
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
    codeChallengeMethod: 'S256',
  });
  const code = new URL(authorization.redirectUrl).searchParams.get('code')!;
  const fields = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.id, code_verifier: verifier };
  const token = await api.call('post', '/v1/oauth/token', null).type('form').send(new URLSearchParams(fields).toString());
  expect(token.status).toBe(200);
  accessToken = token.body.access_token;
});

const listsScheme = (security: unknown, type: string) =>
  ((security ?? []) as Array<Record<string, string[]>>).some((requirement) =>
    Object.keys(requirement).some((name) => schemes[name]?.type === type),
  );
const securityOf = (path: string, method: string) => (document.paths[path]![method] as { security?: unknown }).security;

describe('the document', () => {
  it('when an operation is authenticated, then its security requirement lists the API key scheme', () => {
    expect(Object.values(schemes).map((scheme) => scheme.type)).toEqual(expect.arrayContaining(['http', 'oauth2']));
    const withoutKeys = authenticated.filter((operation) => !listsScheme(securityOf(operation.path, operation.method), 'http'));
    expect(withoutKeys.map((operation) => operation.operationId)).toEqual([]);
  });

  it('when createApiKey is read, then it takes API keys and OAuth tokens (of the dashboard only, says its description)', () => {
    const createApiKey = operations.find((operation) => operation.operationId === 'createApiKey');
    expect(createApiKey?.acceptsOAuthTokens).toBe(true);
    const description = (document.paths['/api_keys']!.post as { description: string }).description;
    expect(description).toContain('form-funnel-dashboard');
    expect(description).toContain('403 `api_key_required`');
  });
});

/** Whether the operation's requirement names the publishable key scheme and nothing else. */
const publishableOnly = (security: unknown) =>
  ((security ?? []) as Array<Record<string, string[]>>).every((requirement) =>
    Object.keys(requirement).every((name) => name === 'publishableKey'),
  );

describe.each(authenticated.map((operation) => [operation.operationId, operation] as const))('%s', (_operationId, operation) => {
  const takesTokens = listsScheme(securityOf(operation.path, operation.method), 'oauth2');
  const refusal = publishableOnly(securityOf(operation.path, operation.method)) ? 'secret_key_not_allowed' : 'api_key_required';

  it(`when called with an OAuth access token of every scope, then ${takesTokens ? 'it is not refused for being one' : `403 ${refusal}`}`, async () => {
    // Ids that name nothing: the credential is decided before the path's resource is looked up.
    const path = `/v1${operation.path.replace(/\{[^}]+\}/g, (template) => (template === '{version}' ? '1' : absentId('form')))}`;
    const res =
      operation.operationId === 'createApiKey'
        ? await api.call(operation.method, path, accessToken).send({ name: 'Forever', environment: 'live', scope: 'read' })
        : await api.call(operation.method, path, accessToken);
    if (operation.operationId === 'createApiKey') {
      // Declared for the dashboard's tokens; a partner's (this one) is refused by the service (dashboard-oauth.test.ts).
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: 'api_key_required' });
    } else if (takesTokens) {
      expect(res.body.code, `${operation.method.toUpperCase()} ${path}: ${JSON.stringify(res.body)}`).not.toBe('api_key_required');
      expect(res.status).not.toBe(401);
    } else {
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 403, code: refusal });
    }
  });
});
