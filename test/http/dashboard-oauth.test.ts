/**
 * The dashboard signs in as a first-party OAuth public client, on both stores (api and api-postgres): consent is
 * implied on the consent page, the scope follows the member's role, the redirect URI is the dashboard on the service's
 * own origin and nowhere else, and it works on every plan while partners' applications stay an Enterprise feature.
 * The page itself is one document under a strict policy. The same sign-in in a browser: dashboard-walk.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import express from 'express';
import type { Response } from 'supertest';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { registerOAuthClient } from '../../src/domain/oauth/clients.js';
import { dashboardClientId } from '../../src/domain/oauth/first-party.js';
import { ensureAccount } from '../../src/domain/people/accounts.js';
import { signInLinkFor } from '../../src/domain/people/links.js';
import { dashboardPage } from '../../src/http/dashboard-page.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';

// A business workspace: OAuth for partners is Enterprise only, the dashboard is for everyone.
const api = useWatchedApi(() => ({ plan: 'business', rateLimits: generousLimits }));

const page = (method: 'get' | 'post', path: string) => request(api.baseUrl)[method](path).trustLocalhost().ca(api.certificate).redirects(0);
const dashboardUri = () => `${api.baseUrl}/dashboard/`;

function sessionCookie(res: Response): string {
  const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((entry) => entry.startsWith('__Host-ff_session='));
  if (!cookie) throw new Error('no session cookie');
  return cookie.split(';')[0]!;
}

async function signedIn(email: string): Promise<string> {
  const link = await signInLinkFor(api.services, await ensureAccount(api.services, email));
  const res = await page('post', '/sign-in/link')
    .set('Origin', api.baseUrl)
    .type('form')
    .send({ token: new URL(link.url).searchParams.get('token') });
  expect(res.status).toBe(303);
  return sessionCookie(res);
}

async function addMember(email: string, role: 'admin' | 'editor' | 'viewer', workspaceId = api.workspace.workspace_id) {
  await api.store.team.addMember(workspaceId, {
    id: `mem_${randomBytes(12).toString('hex').slice(0, 24)}`,
    object: 'member',
    email,
    name: null,
    role,
    created_at: new Date().toISOString(),
  });
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

const authorizePath = (challenge: string, extra: Record<string, string> = {}) =>
  `/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: dashboardClientId,
    redirect_uri: dashboardUri(),
    scope: 'read read_write admin',
    state: 'tab-state',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  })}`;

/** The dashboard's sign-in as its script does it: authorize with the session, exchange the code with the verifier. */
async function dashboardTokens(cookie: string, extra: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const authorized = await page('get', authorizePath(challenge, extra)).set('Cookie', cookie);
  expect(authorized.status).toBe(303);
  const back = new URL(authorized.headers.location as string);
  expect(`${back.origin}${back.pathname}`).toBe(dashboardUri());
  expect(back.searchParams.get('state')).toBe('tab-state');
  const token = await page('post', '/v1/oauth/token')
    .type('form')
    .send({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code'),
      redirect_uri: dashboardUri(),
      code_verifier: verifier,
      client_id: dashboardClientId,
    });
  expect(token.status).toBe(200);
  return token.body as { access_token: string; refresh_token: string; scope: string };
}

describe('the dashboard as a first-party OAuth client', () => {
  it('when a signed-in admin opens the authorization URL, then consent is implied: straight back with a code for admin', async () => {
    const tokens = await dashboardTokens(await signedIn('owner@acme.test'));
    const me = await api.call('get', '/v1/me', tokens.access_token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      auth_type: 'oauth_token',
      name: 'Form-Funnel dashboard',
      scope: 'admin',
      environment: 'live',
      member: { email: 'owner@acme.test' },
      workspace: { id: api.workspace.workspace_id, plan: 'business' },
    });
    // It is a public client: the refresh token works with client_id alone, and is rotated.
    const refreshed = await page('post', '/v1/oauth/token')
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: dashboardClientId });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
  });

  it('when a viewer and an editor sign in, then their tokens carry read and read_write, and the API refuses more', async () => {
    await addMember('vera@acme.test', 'viewer');
    await addMember('ed@acme.test', 'editor');
    const viewer = await dashboardTokens(await signedIn('vera@acme.test'));
    const editor = await dashboardTokens(await signedIn('ed@acme.test'));
    expect((await api.call('get', '/v1/me', viewer.access_token)).body).toMatchObject({
      scope: 'read',
      member: { email: 'vera@acme.test' },
    });
    expect((await api.call('get', '/v1/me', editor.access_token)).body).toMatchObject({ scope: 'read_write' });
    const create = (token: string) => api.call('post', '/v1/forms', token).send({ name: 'Refused' });
    expect((await create(viewer.access_token)).status).toBe(403);
    expect((await api.call('get', '/v1/api_keys', editor.access_token)).status).toBe(403);
    expect((await api.call('get', '/v1/forms', viewer.access_token)).status).toBe(200);
  });

  it('when the member signs out, then the dashboard’s grant refreshes no more and its token creates no key', async () => {
    const cookie = await signedIn('owner@acme.test');
    const tokens = await dashboardTokens(cookie);
    // Every session of the person must end: a sign-in elsewhere (another test's) would keep the grant alive.
    const account = await ensureAccount(api.services, 'owner@acme.test');
    await api.store.people.endSessionsOf(account.id, new Date().toISOString());
    const refreshed = await page('post', '/v1/oauth/token')
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: dashboardClientId });
    expect({ status: refreshed.status, error: refreshed.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
    expect(refreshed.body.message).toMatch(/sign-in behind this dashboard has ended/);
    const key = await api.call('post', '/v1/api_keys', tokens.access_token).send({ name: 'Late', environment: 'live', scope: 'read' });
    expect({ status: key.status, code: key.body.code }).toEqual({ status: 403, code: 'api_key_required' });
    // Reads go on until the access token's hour is over; a new sign-in brings everything back.
    expect((await api.call('get', '/v1/me', tokens.access_token)).status).toBe(200);
    const again = await dashboardTokens(await signedIn('owner@acme.test'));
    expect(
      (await api.call('post', '/v1/api_keys', again.access_token).send({ name: 'Now', environment: 'live', scope: 'read' })).status,
    ).toBe(201);
  });

  it('when the dashboard refreshes, then the member’s session is kept alive; a session idle past its lifetime is not', async () => {
    const cookie = await signedIn('owner@acme.test');
    const tokens = await dashboardTokens(cookie);
    const account = await ensureAccount(api.services, 'owner@acme.test');
    // Every live session of the person seen 2 hours ago: a refresh now writes its last_seen_at.
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000).toISOString();
    await api.rows('UPDATE sessions SET last_seen_at = ? WHERE account_id = ? AND ended_at IS NULL', twoHoursAgo, account.id);
    const refresh = (token: string) =>
      page('post', '/v1/oauth/token')
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: token, client_id: dashboardClientId });
    const first = await refresh(tokens.refresh_token);
    expect(first.status).toBe(200);
    const seen = await api.rows('SELECT last_seen_at FROM sessions WHERE account_id = ? AND ended_at IS NULL', account.id);
    expect(seen.map((row) => Date.now() - Date.parse(String(row.last_seen_at))).some((age) => age < 60_000)).toBe(true);
    // Idle for 13 hours: no live session is left, so the dashboard's grant gets nothing more.
    const idle = new Date(Date.now() - 13 * 3600_000).toISOString();
    await api.rows('UPDATE sessions SET last_seen_at = ? WHERE account_id = ? AND ended_at IS NULL', idle, account.id);
    expect((await refresh(first.body.refresh_token)).status).toBe(400);
  });

  it('when the sign-in page was opened elsewhere, then the dashboard’s code cannot be redeemed for another redirect URI', async () => {
    const { verifier, challenge } = pkce();
    const authorized = await page('get', authorizePath(challenge)).set('Cookie', await signedIn('owner@acme.test'));
    const code = new URL(authorized.headers.location as string).searchParams.get('code');
    const exchanged = await page('post', '/v1/oauth/token').type('form').send({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'https://evil.example/dashboard/',
      code_verifier: verifier,
      client_id: dashboardClientId,
    });
    expect({ status: exchanged.status, error: exchanged.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
    expect(exchanged.body.message).toMatch(/redirect_uri does not match/);
  });

  it('when test mode is asked for, then the token acts in the test environment', async () => {
    const tokens = await dashboardTokens(await signedIn('owner@acme.test'), { environment: 'test' });
    expect((await api.call('get', '/v1/me', tokens.access_token)).body.environment).toBe('test');
  });

  it('when an admin creates an API key in the dashboard, then it is made as with an admin key; in test mode, test keys only', async () => {
    const cookie = await signedIn('owner@acme.test');
    const live = await dashboardTokens(cookie);
    const created = await api.call('post', '/v1/api_keys', live.access_token).send({ name: 'Server', environment: 'live', scope: 'read' });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^svc_live_/);
    expect((await api.call('get', '/v1/me', created.body.secret)).body).toMatchObject({ scope: 'read', environment: 'live' });
    const test = await dashboardTokens(cookie, { environment: 'test' });
    const refused = await api.call('post', '/v1/api_keys', test.access_token).send({ name: 'Live', environment: 'live', scope: 'read' });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'live_resource' });
  });

  it('when the redirect URI is anything but the dashboard on this origin, then an error page and no redirect', async () => {
    const cookie = await signedIn('owner@acme.test');
    const { challenge } = pkce();
    for (const redirect of ['https://evil.example/dashboard/', `${api.baseUrl}/account`, `${api.baseUrl}/dashboard/leads`]) {
      const res = await page('get', authorizePath(challenge, { redirect_uri: redirect })).set('Cookie', cookie);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it('when another site links to the authorization URL, then the consent page asks, and Approve gives the code', async () => {
    const cookie = await signedIn('owner@acme.test');
    const { verifier, challenge } = pkce();
    const asked = await page('get', authorizePath(challenge)).set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site');
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('Form-Funnel dashboard');
    const same = await page('get', authorizePath(pkce().challenge)).set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin');
    expect(same.status).toBe(303);
    const approved = await page('post', '/oauth/authorize').set('Cookie', cookie).set('Origin', api.baseUrl).type('form').send({
      response_type: 'code',
      client_id: dashboardClientId,
      redirect_uri: dashboardUri(),
      scope: 'read read_write admin',
      state: 'tab-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      workspace: api.workspace.workspace_id,
      decision: 'approve',
    });
    expect(approved.status).toBe(303);
    const code = new URL(approved.headers.location as string).searchParams.get('code');
    const token = await page('post', '/v1/oauth/token').type('form').send({
      grant_type: 'authorization_code',
      code,
      redirect_uri: dashboardUri(),
      code_verifier: verifier,
      client_id: dashboardClientId,
    });
    expect(token.status).toBe(200);
  });

  it('when nobody is signed in, then the authorization URL sends the person to sign in and back', async () => {
    const { challenge } = pkce();
    const res = await page('get', authorizePath(challenge));
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/sign-in?next=${encodeURIComponent(authorizePath(challenge))}`);
  });

  it('when a workspace is named, then it is used if the person belongs to it, and refused otherwise', async () => {
    const other = await api.otherWorkspace('free');
    await addMember('owner@acme.test', 'viewer', other.workspace_id);
    const cookie = await signedIn('owner@acme.test');
    const tokens = await dashboardTokens(cookie, { workspace: other.workspace_id });
    expect((await api.call('get', '/v1/me', tokens.access_token)).body).toMatchObject({
      scope: 'read',
      workspace: { id: other.workspace_id, plan: 'free' },
    });
    const { challenge } = pkce();
    const stranger = await api.otherWorkspace('business');
    const refused = await page('get', authorizePath(challenge, { workspace: stranger.workspace_id })).set('Cookie', cookie);
    expect(refused.status).toBe(403);
    expect(refused.headers.location).toBeUndefined();
    expect(refused.text).toContain('Choose one of your workspaces');
    expect(refused.text).toContain('You are not a member of that workspace. Open the dashboard from your account page.');
    // Someone with an account but no membership at all is told so.
    const nobody = await page('get', authorizePath(challenge)).set('Cookie', await signedIn('ex-member@acme.test'));
    expect(nobody.status).toBe(403);
    expect(nobody.text).toContain('You are not a member of a workspace');
    expect(nobody.text).toContain('you belong to none');
  });

  it('when a partner application asks a business workspace, then OAuth is still Enterprise only', async () => {
    const partnerRedirect = 'https://partner.example/callback';
    const { client } = await registerOAuthClient(api.services, { name: 'Partner CRM', redirectUris: [partnerRedirect] });
    const { challenge } = pkce();
    const res = await page('get', authorizePath(challenge, { client_id: client.id, redirect_uri: partnerRedirect })).set(
      'Cookie',
      await signedIn('owner@acme.test'),
    );
    expect(res.status).toBe(403);
    expect(res.text).toContain('Enterprise');
  });

  it('when a partner application’s admin token creates an API key, then 403 api_key_required: only the dashboard may', async () => {
    const enterprise = await api.otherWorkspace('enterprise');
    await addMember('owner@acme.test', 'admin', enterprise.workspace_id);
    const partnerRedirect = 'https://partner.example/callback';
    const { client } = await registerOAuthClient(api.services, { name: 'Partner CRM', redirectUris: [partnerRedirect] });
    const { verifier, challenge } = pkce();
    const cookie = await signedIn('owner@acme.test');
    const approved = await page('post', '/oauth/authorize').set('Cookie', cookie).set('Origin', api.baseUrl).type('form').send({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: partnerRedirect,
      scope: 'admin',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      workspace: enterprise.workspace_id,
      decision: 'approve',
    });
    expect(approved.status).toBe(303);
    const code = new URL(approved.headers.location as string).searchParams.get('code');
    const token = await page('post', '/v1/oauth/token')
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: partnerRedirect, code_verifier: verifier, client_id: client.id });
    expect(token.status).toBe(200);
    const refused = await api
      .call('post', '/v1/api_keys', token.body.access_token)
      .send({ name: 'Mine', environment: 'live', scope: 'read' });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 'api_key_required' });
  });
});

describe('the dashboard page', () => {
  it('when /dashboard or any screen below it is opened, then one document under a strict policy, with its hashed files', async () => {
    const bare = await page('get', '/dashboard');
    expect(bare.status).toBe(308);
    expect(bare.headers.location).toBe('/dashboard/');
    for (const path of ['/dashboard/', '/dashboard/leads', '/dashboard/forms/frm_x/versions']) {
      const res = await page('get', path);
      expect(res.status).toBe(200);
      expect(res.headers['content-security-policy']).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
          "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['set-cookie']).toBeUndefined();
      expect(res.text).not.toMatch(/<script>|style=/);
      expect(res.text).toContain(`data-client-id="${dashboardClientId}"`);
      const script = /<script src="(\/f\/assets\/dashboard\.[A-Z0-9]+\.js)"/.exec(res.text)?.[1];
      expect(script).toBeDefined();
      const asset = await page('get', script!);
      expect(asset.status).toBe(200);
      expect(asset.headers['content-type']).toMatch(/javascript/);
    }
    // Paths are case-sensitive, as everywhere else: /Dashboard/ is no page of the service.
    expect((await page('get', '/Dashboard/')).status).toBe(404);
  });

  it('when the browser files are not built, then 503 with what to run, under the same policy', async () => {
    const app = express();
    app.use(dashboardPage({ assetsOf: () => undefined, limitAddress: (_req, _res, next) => next(), consentPath: '/oauth/authorize' }));
    const res = await request(app).get('/dashboard/');
    expect(res.status).toBe(503);
    expect(res.text).toContain('The dashboard is not built: run npm run build.');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });
});
