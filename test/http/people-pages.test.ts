/**
 * People's pages over HTTP, on both stores (the api and api-postgres projects): sign-in links spent once and only by
 * their button, sessions in a `__Host-` cookie that `/v1` never reads, invitations accepted by the invited address
 * only, the OAuth consent page (a member grants at most their role; a bad client or redirect URI is a page, never a
 * redirect) and the hostile cases: a reused or expired link, a forged Origin, an open redirect. The same flow with
 * passkeys in a real browser is people-browser.test.ts.
 */
import { createHash } from 'node:crypto';
import type { Response } from 'supertest';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { registerOAuthClient } from '../../src/domain/oauth/clients.js';
import { ensureAccount } from '../../src/domain/people/accounts.js';
import { signInLinkFor } from '../../src/domain/people/links.js';
import { RecordNotFound } from '../../src/store/errors.js';
import { createTestApi } from '../support/harness.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';

let now = Date.parse('2031-05-01T09:00:00.000Z');
function advance(ms: number): void {
  now += ms;
}
const api = useWatchedApi(() => ({ plan: 'enterprise', now: () => new Date(now), rateLimits: generousLimits }));

const page = (method: 'get' | 'post', path: string) => request(api.baseUrl)[method](path).trustLocalhost().ca(api.certificate).redirects(0);
const origin = () => api.baseUrl;
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

/** The session cookie a response set, as a browser would send it back. */
function sessionCookie(res: Response): string {
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const cookie = cookies.find((entry) => entry.startsWith('__Host-ff_session='));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(cookies)}`);
  return cookie.split(';')[0]!;
}

async function signInByLink(email: string): Promise<string> {
  const link = await signInLinkFor(api.services, await ensureAccount(api.services, email));
  const res = await page('post', '/sign-in/link')
    .set('Origin', origin())
    .type('form')
    .send({ token: tokenOf(link.url) });
  expect(res.status).toBe(303);
  return sessionCookie(res);
}

/** The link in the newest queued message to `to` (the outgoing mail is the test's mailbox here). */
async function mailedLink(to: string): Promise<string> {
  const due = await api.store.people.dueMail('2100-01-01T00:00:00.000Z', 100);
  const message = due.filter((mail) => mail.to === to).at(-1);
  if (!message) throw new Error(`no mail to ${to}`);
  const url = /https:\/\/\S+/.exec(message.text)?.[0];
  if (!url) throw new Error('no link in the message');
  return url;
}

describe('sign-in links', () => {
  it('when a link is opened, then its page names the person and spends nothing; its button signs in once, with a __Host- cookie', async () => {
    const link = await signInLinkFor(api.services, await ensureAccount(api.services, 'owner@acme.test'));
    const token = tokenOf(link.url);
    for (let i = 0; i < 2; i++) {
      const opened = await page('get', `/sign-in/link?token=${token}`);
      expect(opened.status).toBe(200);
      expect(opened.text).toContain('owner@acme.test');
      expect(opened.headers['content-security-policy']).toContain("default-src 'self'");
      expect(opened.headers['referrer-policy']).toBe('same-origin');
      expect(opened.headers['cache-control']).toBe('no-store');
    }
    const used = await page('post', '/sign-in/link').set('Origin', origin()).type('form').send({ token });
    expect(used.status).toBe(303);
    expect(used.headers.location).toBe('/account');
    const cookie = ([] as string[]).concat(used.headers['set-cookie'] ?? []).find((entry) => entry.startsWith('__Host-ff_session='))!;
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).not.toMatch(/Domain=/);
    // The cookie lasts as long as the session may: 7 days from the sign-in.
    expect(cookie).toMatch(/; Max-Age=604800(;|$)/);
    const signedIn = await api.call('get', '/v1/audit_events?type=member.signed_in');
    expect(signedIn.body.data[0]).toMatchObject({
      type: 'member.signed_in',
      actor: { type: 'system', id: null, name: null },
      target: { type: 'member', name: 'owner@acme.test' },
      reason: 'signed in with a link',
    });
    // The cookie's value is not what the store keeps: only its hash is there.
    const value = cookie.split(';')[0]!.split('=')[1]!;
    const stored = await api.store.people.findSession(createHash('sha256').update(value).digest());
    expect(stored?.account.email).toBe('owner@acme.test');

    const again = await page('post', '/sign-in/link').set('Origin', origin()).type('form').send({ token });
    expect(again.status).toBe(410);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect((await page('get', `/sign-in/link?token=${token}`)).status).toBe(410);
  });

  it('when a link is 15 minutes old, then it no longer signs in', async () => {
    const link = await signInLinkFor(api.services, await ensureAccount(api.services, 'owner@acme.test'));
    advance(15 * 60_000);
    const res = await page('post', '/sign-in/link')
      .set('Origin', origin())
      .type('form')
      .send({ token: tokenOf(link.url) });
    expect(res.status).toBe(410);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('when a link is sent from another site or without an Origin, then nothing is done and the link still works', async () => {
    const link = await signInLinkFor(api.services, await ensureAccount(api.services, 'owner@acme.test'));
    const token = tokenOf(link.url);
    const forged = await page('post', '/sign-in/link').set('Origin', 'https://evil.example').type('form').send({ token });
    expect(forged.status).toBe(403);
    expect(forged.headers['set-cookie']).toBeUndefined();
    expect((await page('post', '/sign-in/link').type('form').send({ token })).status).toBe(403);
    expect((await page('post', '/sign-in/link').set('Origin', origin()).type('form').send({ token })).status).toBe(303);
  });

  it.each([
    ['//evil.example/x'],
    ['/\\evil.example'],
    ['https://evil.example/'],
    ['/%0d%0a//evil.example'.replace('%0d%0a', '\t')],
    ['javascript:alert(1)'],
  ])('when next is %j, then the person lands on their account, not elsewhere', async (next) => {
    const link = await signInLinkFor(api.services, await ensureAccount(api.services, 'owner@acme.test'));
    const res = await page('post', '/sign-in/link')
      .set('Origin', origin())
      .type('form')
      .send({ token: tokenOf(link.url), next });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/account');
  });

  it('when next is a path of this service, then the person lands there', async () => {
    const link = await signInLinkFor(api.services, await ensureAccount(api.services, 'owner@acme.test'));
    const next = '/oauth/authorize?client_id=x';
    const res = await page('post', '/sign-in/link')
      .set('Origin', origin())
      .type('form')
      .send({ token: tokenOf(link.url), next });
    expect(res.headers.location).toBe(next);
  });

  it('when someone asks for a link by email, then the page says the same for a member and a stranger, and only the member is mailed', async () => {
    // The links the tests above made for the owner are past their lifetime: they no longer count against new ones.
    advance(15 * 60_000 + 1);
    const member = await page('post', '/sign-in/email').set('Origin', origin()).type('form').send({ email: 'owner@acme.test' });
    const stranger = await page('post', '/sign-in/email').set('Origin', origin()).type('form').send({ email: 'nobody@else.test' });
    expect(member.status).toBe(200);
    expect(stranger.status).toBe(200);
    expect(member.text.replace('owner@acme.test', 'X')).toBe(stranger.text.replace('nobody@else.test', 'X'));
    expect(await mailedLink('owner@acme.test')).toMatch(/\/sign-in\/link\?token=[A-Za-z0-9_-]{43}$/);
    const due15 = (await api.store.people.dueMail('2100-01-01T00:00:00.000Z', 100)).filter((mail) => mail.to === 'owner@acme.test');
    expect(due15.at(-1)?.text).toContain('15 minutes');
    await page('post', '/sign-in/email').set('Origin', origin()).type('form').send({ email: 'owner@acme.test', next: '/account' });
    expect(new URL(await mailedLink('owner@acme.test')).searchParams.get('next')).toBe('/account');
    const due = await api.store.people.dueMail('2100-01-01T00:00:00.000Z', 100);
    expect(due.filter((mail) => mail.to === 'nobody@else.test')).toEqual([]);
  });

  it('when one address is asked for again and again, then it is sent three links per 15 minutes, and the page says the same', async () => {
    const sent = async () =>
      (await api.store.people.dueMail('2100-01-01T00:00:00.000Z', 1000)).filter((mail) => mail.to === 'flood@acme.test').length;
    await api.store.team.addMember(api.workspace.workspace_id, {
      id: `mem_${'F'.repeat(24)}`,
      object: 'member',
      email: 'flood@acme.test',
      name: null,
      role: 'viewer',
      created_at: new Date(now).toISOString(),
    });
    const ask = () => page('post', '/sign-in/email').set('Origin', origin()).type('form').send({ email: 'flood@acme.test' });
    const pages = new Set<string>();
    for (let i = 0; i < 5; i++) pages.add((await ask()).text);
    expect(pages.size).toBe(1);
    expect(await sent()).toBe(3);
    advance(15 * 60_000 + 1);
    await ask();
    expect(await sent()).toBe(4);
  });
});

describe('sessions', () => {
  it('when the session cookie is sent to /v1 without a key, then 401: the API reads bearer tokens only', async () => {
    const cookie = await signInByLink('owner@acme.test');
    const res = await api.call('get', '/v1/me', null).set('Cookie', cookie);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_api_key');
  });

  it('when signed in, then the account page lists the workspaces; signed out, it sends the person to sign in and back', async () => {
    expect((await page('get', '/account')).headers.location).toBe('/sign-in?next=%2Faccount');
    const cookie = await signInByLink('owner@acme.test');
    const account = await page('get', '/account').set('Cookie', cookie);
    expect(account.status).toBe(200);
    expect(account.text).toContain('Acme');
    const out = await page('post', '/sign-out').set('Origin', origin()).set('Cookie', cookie).type('form').send({});
    expect(out.status).toBe(303);
    expect((await page('get', '/account').set('Cookie', cookie)).status).toBe(303);
  });

  it('when a session is unused for 12 hours, or 7 days pass, then it has ended', async () => {
    const idle = await signInByLink('owner@acme.test');
    advance(12 * 3600_000);
    expect((await page('get', '/account').set('Cookie', idle)).status).toBe(303);

    const busy = await signInByLink('owner@acme.test');
    for (let hour = 0; hour < 7 * 24; hour += 11) {
      expect((await page('get', '/account').set('Cookie', busy)).status).toBe(200);
      advance(11 * 3600_000);
    }
    expect((await page('get', '/account').set('Cookie', busy)).status).toBe(303);
  });

  it('when a person signs in again in the same browser, then the old session token stops working (rotated)', async () => {
    const first = await signInByLink('owner@acme.test');
    const link = await signInLinkFor(api.services, await ensureAccount(api.services, 'owner@acme.test'));
    const res = await page('post', '/sign-in/link')
      .set('Origin', origin())
      .set('Cookie', first)
      .type('form')
      .send({ token: tokenOf(link.url) });
    const second = sessionCookie(res);
    expect(second).not.toBe(first);
    expect((await page('get', '/account').set('Cookie', first)).status).toBe(303);
    expect((await page('get', '/account').set('Cookie', second)).status).toBe(200);
  });
});

describe('invitations', () => {
  it('when an admin invites a colleague, then the emailed link makes them a viewer, once; the invite is accepted and the join audited', async () => {
    const invite = await api.call('post', '/v1/team/invites').send({ email: 'Colleague@Acme.test', role: 'viewer' });
    expect(invite.status).toBe(201);
    const url = await mailedLink('colleague@acme.test');
    const token = tokenOf(url);
    const opened = await page('get', `/invites/accept?token=${token}`);
    expect(opened.status).toBe(200);
    expect(opened.text).toContain('Acme');

    const accepted = await page('post', '/invites/accept').set('Origin', origin()).type('form').send({ token });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.location).toBe('/account');
    sessionCookie(accepted);
    const members = await api.call('get', '/v1/team/members?limit=100');
    expect(members.body.data).toContainEqual(expect.objectContaining({ email: 'colleague@acme.test', role: 'viewer' }));
    const invites = await api.call('get', '/v1/team/invites?status=accepted&limit=100');
    expect(invites.body.data.map((item: { id: string }) => item.id)).toContain(invite.body.id);
    const audit = await api.call('get', '/v1/audit_events?type=member.joined');
    expect(audit.body.data[0]).toMatchObject({ type: 'member.joined', target: { type: 'member', name: 'colleague@acme.test' } });

    expect((await page('post', '/invites/accept').set('Origin', origin()).type('form').send({ token })).status).toBe(410);
  });

  it('when the person signed in is not the one invited, then the invitation is refused and stays open', async () => {
    await api.call('post', '/v1/team/invites').send({ email: 'someone@acme.test', role: 'editor' });
    const token = tokenOf(await mailedLink('someone@acme.test'));
    const owner = await signInByLink('owner@acme.test');
    const refused = await page('post', '/invites/accept').set('Origin', origin()).set('Cookie', owner).type('form').send({ token });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('someone@acme.test');
    expect((await page('get', `/invites/accept?token=${token}`)).status).toBe(200);
    // Its page offers to sign out and come back to the invitation.
    const next = `/invites/accept?token=${token}`;
    const out = await page('post', '/sign-out').set('Origin', origin()).set('Cookie', owner).type('form').send({ next });
    expect(out.headers.location).toBe(next);
  });

  it('when the invited address already has an account, then accepting makes the member but does not sign in: the person signs in as always', async () => {
    await ensureAccount(api.services, 'owner@acme.test');
    const other = await api.otherWorkspace();
    const invited = await api.call('post', '/v1/team/invites', other.live_admin_key).send({ email: 'owner@acme.test', role: 'admin' });
    expect(invited.status).toBe(201);
    const token = tokenOf(await mailedLink('owner@acme.test'));
    const accepted = await page('post', '/invites/accept').set('Origin', origin()).type('form').send({ token });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.location).toBe('/sign-in?next=%2Faccount');
    expect(accepted.headers['set-cookie']).toBeUndefined();
    const members = await api.call('get', '/v1/team/members?limit=100', other.live_admin_key);
    expect(members.body.data).toContainEqual(expect.objectContaining({ email: 'owner@acme.test', role: 'admin' }));
  });

  it('when an invite is revoked, resent or has expired, then its old link is refused', async () => {
    const revoked = await api.call('post', '/v1/team/invites').send({ email: 'revoked@acme.test', role: 'viewer' });
    const revokedToken = tokenOf(await mailedLink('revoked@acme.test'));
    await api.call('delete', `/v1/team/invites/${revoked.body.id}`);
    expect((await page('post', '/invites/accept').set('Origin', origin()).type('form').send({ token: revokedToken })).status).toBe(410);

    const resent = await api.call('post', '/v1/team/invites').send({ email: 'resent@acme.test', role: 'viewer' });
    const firstToken = tokenOf(await mailedLink('resent@acme.test'));
    expect((await api.call('post', `/v1/team/invites/${resent.body.id}/resend`)).status).toBe(200);
    const secondToken = tokenOf(await mailedLink('resent@acme.test'));
    expect(secondToken).not.toBe(firstToken);
    expect((await page('post', '/invites/accept').set('Origin', origin()).type('form').send({ token: firstToken })).status).toBe(410);
    expect((await page('get', `/invites/accept?token=${secondToken}`)).status).toBe(200);

    await api.call('post', '/v1/team/invites').send({ email: 'late@acme.test', role: 'viewer' });
    const lateToken = tokenOf(await mailedLink('late@acme.test'));
    advance(7 * 24 * 3600_000);
    expect((await page('post', '/invites/accept').set('Origin', origin()).type('form').send({ token: lateToken })).status).toBe(410);
  });
});

describe('the OAuth consent page', () => {
  const redirectUri = 'https://partner.example/callback';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

  async function client() {
    const { client } = await registerOAuthClient(api.services, { name: 'Partner CRM', redirectUris: [redirectUri] });
    return client.id;
  }
  const authorizeQuery = (clientId: string, extra: Record<string, string> = {}) =>
    new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'read admin',
      state: 'xyz',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    });

  it('when the client or its redirect URI is unknown, then an error page, never a redirect', async () => {
    const clientId = await client();
    const unknownClient = await page('get', `/oauth/authorize?${authorizeQuery('client_AAAAAAAAAAAAAAAAAAAAAAAA')}`);
    expect(unknownClient.status).toBe(400);
    expect(unknownClient.headers.location).toBeUndefined();
    const otherRedirect = await page('get', `/oauth/authorize?${authorizeQuery(clientId, { redirect_uri: 'https://evil.example/cb' })}`);
    expect(otherRedirect.status).toBe(400);
    expect(otherRedirect.headers.location).toBeUndefined();
    expect(otherRedirect.text).not.toContain('evil.example');
  });

  it('when PKCE is missing, plain or malformed, then an error page, never a redirect', async () => {
    const clientId = await client();
    const missing = authorizeQuery(clientId);
    missing.delete('code_challenge');
    for (const query of [
      missing,
      authorizeQuery(clientId, { code_challenge_method: 'plain' }),
      authorizeQuery(clientId, { code_challenge: 'short' }),
    ]) {
      const res = await page('get', `/oauth/authorize?${query}`);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain('PKCE');
    }
  });

  it('when the scope is unknown, then the client hears invalid_scope on its redirect URI, with its state', async () => {
    const clientId = await client();
    const res = await page('get', `/oauth/authorize?${authorizeQuery(clientId, { scope: 'read everything' })}`);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.location!);
    expect(location.origin + location.pathname).toBe(redirectUri);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('state')).toBe('xyz');
  });

  it('when state is not printable ASCII or a parameter is given twice, then invalid_request, without the bad state', async () => {
    const clientId = await client();
    const badState = await page('get', `/oauth/authorize?${authorizeQuery(clientId, { state: 'a\u0007b' })}`);
    const badAt = new URL(badState.headers.location!);
    expect(badAt.searchParams.get('error')).toBe('invalid_request');
    expect(badAt.searchParams.has('state')).toBe(false);
    const twice = await page('get', `/oauth/authorize?${authorizeQuery(clientId)}&scope=admin`);
    const twiceAt = new URL(twice.headers.location!);
    expect(twiceAt.searchParams.get('error')).toBe('invalid_request');
    expect(twiceAt.searchParams.get('state')).toBe('xyz');
  });

  it('when a viewer approves an application that asks for admin only, then it hears access_denied and nothing is granted', async () => {
    const clientId = await client();
    await api.call('post', '/v1/team/invites').send({ email: 'onlyread@acme.test', role: 'viewer' });
    const token = tokenOf(await mailedLink('onlyread@acme.test'));
    const cookie = sessionCookie(await page('post', '/invites/accept').set('Origin', origin()).type('form').send({ token }));
    const approved = await page('post', '/oauth/authorize')
      .set('Origin', origin())
      .set('Cookie', cookie)
      .type('form')
      .send({
        ...Object.fromEntries(authorizeQuery(clientId, { scope: 'admin' })),
        workspace: api.workspace.workspace_id,
        decision: 'approve',
      });
    const back = new URL(approved.headers.location!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.has('code')).toBe(false);
    expect(await api.rows('SELECT id FROM oauth_grants WHERE client_id = ?', clientId)).toEqual([]);
  });

  it('when response_type is not code, then unsupported_response_type goes back to the client', async () => {
    const clientId = await client();
    const res = await page('get', `/oauth/authorize?${authorizeQuery(clientId, { response_type: 'token' })}`);
    expect(new URL(res.headers.location!).searchParams.get('error')).toBe('unsupported_response_type');
  });

  it('when the member is removed while the page is open, then Approve is refused in words and nothing is granted', async () => {
    const clientId = await client();
    const cookie = await signInByLink('owner@acme.test');
    const owner = (await api.call('get', '/v1/team/members?limit=100')).body.data.find(
      (m: { email: string }) => m.email === 'owner@acme.test',
    );
    // The race the store closes: the member's row goes between the page's check and the grant's insert.
    vi.spyOn(api.store.oauth, 'createGrant').mockRejectedValueOnce(new RecordNotFound('member', owner.id));
    const res = await page('post', '/oauth/authorize')
      .set('Origin', origin())
      .set('Cookie', cookie)
      .type('form')
      .send({ ...Object.fromEntries(authorizeQuery(clientId)), workspace: api.workspace.workspace_id, decision: 'approve' });
    expect(res.status).toBe(403);
    expect(res.text).toContain('no longer a member');
    expect(res.headers.location).toBeUndefined();
  });

  it('when nobody is signed in, then the page sends them to sign in and back to the same request', async () => {
    const clientId = await client();
    const path = `/oauth/authorize?${authorizeQuery(clientId)}`;
    const res = await page('get', path);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/sign-in?next=${encodeURIComponent(path)}`);
  });

  it('when a viewer approves, then the code carries read only; GET /v1/me names them; Deny gives access_denied; removing them revokes the token', async () => {
    const clientId = await client();
    await api.call('post', '/v1/team/invites').send({ email: 'viewer@acme.test', role: 'viewer' });
    const token = tokenOf(await mailedLink('viewer@acme.test'));
    const cookie = sessionCookie(await page('post', '/invites/accept').set('Origin', origin()).type('form').send({ token }));

    const consent = await page('get', `/oauth/authorize?${authorizeQuery(clientId)}`).set('Cookie', cookie);
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Partner CRM');
    expect(consent.text).toContain('partner.example');

    const fields = Object.fromEntries(authorizeQuery(clientId));
    const forged = await page('post', '/oauth/authorize')
      .set('Origin', 'https://evil.example')
      .set('Cookie', cookie)
      .type('form')
      .send({ ...fields, workspace: api.workspace.workspace_id, decision: 'approve' });
    expect(forged.status).toBe(403);

    const denied = await page('post', '/oauth/authorize')
      .set('Origin', origin())
      .set('Cookie', cookie)
      .type('form')
      .send({ ...fields, workspace: api.workspace.workspace_id, decision: 'deny' });
    expect(denied.status).toBe(303);
    const deniedAt = new URL(denied.headers.location!);
    expect(deniedAt.searchParams.get('error')).toBe('access_denied');
    expect(deniedAt.searchParams.get('state')).toBe('xyz');

    const approved = await page('post', '/oauth/authorize')
      .set('Origin', origin())
      .set('Cookie', cookie)
      .type('form')
      .send({ ...fields, workspace: api.workspace.workspace_id, decision: 'approve' });
    expect(approved.status).toBe(303);
    const back = new URL(approved.headers.location!);
    expect(back.searchParams.get('state')).toBe('xyz');
    const code = back.searchParams.get('code')!;
    const exchanged = await api
      .call('post', '/v1/oauth/token', null)
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.scope).toBe('read');
    const me = await api.call('get', '/v1/me', exchanged.body.access_token);
    expect(me.body.scope).toBe('read');
    expect(me.body.member).toMatchObject({ email: 'viewer@acme.test' });

    const member = me.body.member as { id: string };
    expect((await api.call('delete', `/v1/team/members/${member.id}`)).status).toBe(200);
    expect((await api.call('get', '/v1/me', exchanged.body.access_token)).status).toBe(401);
    // Their session ended with their membership.
    expect((await page('get', '/account').set('Cookie', cookie)).status).toBe(303);
  });
});

describe('hostile input', () => {
  it('when every page call gets bodies it does not expect, then each is refused in words, never a 5xx or an internal', async () => {
    const cookie = await signInByLink('owner@acme.test');
    const posts = [
      '/sign-in/email',
      '/sign-in/passkey/options',
      '/sign-in/passkey',
      '/sign-in/link',
      '/invites/accept',
      '/account/passkeys/options',
      '/account/passkeys',
      '/account/passkeys/psk_AAAAAAAAAAAAAAAAAAAAAAAA/remove',
      '/account/invites',
      '/oauth/authorize',
    ];
    const bodies: Array<[string, string]> = [
      ['application/json', '{'],
      ['application/json', '{"response": 5, "next": ["/x"]}'],
      ['application/json', '{"response": {"id": "x", "rawId": "x", "type": "public-key", "response": {}}}'],
      ['application/json', 'null'],
      ['application/x-www-form-urlencoded', 'token[]=a&token[]=b&email[x]=1&workspace=ws_x&role=owner'],
      ['application/x-www-form-urlencoded', `email=${'a'.repeat(20_000)}`],
      ['text/plain', 'hello'],
    ];
    for (const path of posts) {
      for (const [type, body] of bodies) {
        for (const withCookie of [false, true]) {
          const req = page('post', path).set('Origin', origin()).set('Content-Type', type);
          const res = await (withCookie ? req.set('Cookie', cookie) : req).send(body);
          // The options calls read no body: they answer a ceremony's options whatever comes.
          if (!path.endsWith('/options')) expect(res.status, `${path} ${type} ${body.slice(0, 40)}`).toBeGreaterThanOrEqual(300);
          expect(res.status, `${path} ${type} ${body.slice(0, 40)}`).toBeLessThan(500);
        }
      }
    }
    for (const path of ['/sign-in/link?token[]=a', '/invites/accept?token=%00', '/oauth/authorize?client_id[]=x', '/sign-in?next[]=x']) {
      const res = await page('get', path);
      expect(res.status, path).toBeLessThan(500);
    }
  });
});

describe('limits', () => {
  it('when one address opens the sign-in pages past its budget, then 429 with Retry-After, as a page', async () => {
    const limited = await createTestApi({ rateLimits: { ...generousLimits, publicPerAddressPerMinute: 3 } });
    try {
      const get = (path: string) => request(limited.baseUrl).get(path).trustLocalhost().ca(limited.certificate).redirects(0);
      for (const path of ['/sign-in', '/sign-in/link?token=x', '/account']) expect((await get(path)).status).not.toBe(429);
      const res = await get('/sign-in');
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(res.headers['content-type']).toMatch(/text\/html/);
    } finally {
      await limited.close();
    }
  });
});
