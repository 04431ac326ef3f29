/**
 * People get in, in headless Chromium, on both stores (the api and api-postgres projects): each person is a browser
 * context with its own virtual authenticator (the DevTools protocol's WebAuthn domain), and mail really goes out
 * through SMTP to a server in the test process.
 *
 * The owner opens the link the bootstrap prints, adds a passkey, signs out and back in with it, and invites a
 * colleague from the account page; the colleague opens the invitation from the email, joins as a viewer and adds a
 * passkey of their own; a sample partner application sends the colleague to the consent page, which offers `read`
 * only; Approve gives the app a token whose `GET /v1/me` names the colleague, Deny comes back as `access_denied`, and
 * removing the colleague revokes the grant and ends their session. axe-core checks every page on the way.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOAuthClient } from '../../src/domain/oauth/clients.js';
import { ensureAccount } from '../../src/domain/people/accounts.js';
import { signInLinkFor } from '../../src/domain/people/links.js';
import { smtpMailer } from '../../src/mail/mailer.js';
import { type SampleApp, startSampleApp } from '../../src/oauth-sample/app.js';
import { fetchTrusting, type TrustingFetch } from '../e2e/support/fetch-trusting.js';
import { sharedChromium } from '../support/chromium.js';
import { axeViolations, policyRefusals } from '../support/hosted-browser.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { freePort } from '../support/ports.js';
import { linksIn, useSmtpServer } from '../support/smtp.js';

const smtp = useSmtpServer();
/** WebAuthn refuses an IP address as the relying party: people open the service as https://localhost:PORT. */
const site = () => api.baseUrl.replace('127.0.0.1', 'localhost');
const api = useWatchedApi(() => ({
  plan: 'enterprise',
  rateLimits: generousLimits,
  mailer: smtpMailer(smtp.url, 'Form-Funnel <no-reply@localhost>'),
  localBaseUrl: site,
}));

let browser: Browser;
let trusting: TrustingFetch;
let sample: SampleApp;
let clientId: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await sharedChromium();
  trusting = fetchTrusting(api.certificate);
  const port = await freePort();
  const { client } = await registerOAuthClient(api.services, { name: 'Partner CRM', redirectUris: [`http://127.0.0.1:${port}/callback`] });
  clientId = client.id;
  sample = await startSampleApp({ serviceUrl: site(), clientId, scope: 'read admin', port, fetch: trusting.fetch });
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await sample?.close();
  trusting?.close();
});

/** A person: a browser context of their own with a passkey-capable authenticator that says yes. */
async function person(width?: number): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: width ? { width, height: 800 } : undefined });
  contexts.push(context);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return page;
}

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

/** axe-core finds no violation at all, of any impact. */
async function expectAccessible(page: Page): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
}

describe('people get in', () => {
  it('when the owner and a colleague sign in with passkeys, then the colleague joins as a viewer and grants a partner app read only', async () => {
    const owner = await person();
    const ownerRefusals = policyRefusals(owner);

    // The bootstrap's link (what `npm run admin -- bootstrap` prints): a page, then Continue spends it.
    const link = await signInLinkFor(api.services, await ensureAccount(api.services, 'owner@acme.test'));
    await owner.goto(link.url);
    await heading(owner, 'Continue as owner@acme.test');
    await expectAccessible(owner);
    await owner.getByRole('button', { name: 'Continue' }).click();
    await heading(owner, /account|Your/i);
    await expectAccessible(owner);

    await owner.getByRole('button', { name: 'Add a passkey' }).click();
    await expect
      .poll(async () => (await api.store.people.listPasskeys((await ensureAccount(api.services, 'owner@acme.test')).id)).length)
      .toBe(1);
    await owner
      .getByText(/Passkey added/)
      .first()
      .waitFor();

    // Signed out, the passkey alone signs the owner in.
    await owner.getByRole('button', { name: 'Sign out' }).click();
    await heading(owner, 'Sign in to Form-Funnel');
    await expectAccessible(owner);
    await owner.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await owner.waitForURL(`${site()}/account`);
    const signedIn = await api.call('get', '/v1/audit_events?type=member.signed_in');
    expect(signedIn.body.data[0]).toMatchObject({ type: 'member.signed_in', target: { name: 'owner@acme.test' } });

    // The owner invites a colleague from the account page; the invitation arrives by SMTP.
    await owner.getByLabel('Email address').fill('colleague@acme.test');
    await owner.getByLabel('Role').selectOption('viewer');
    await owner.getByRole('button', { name: /Invite/ }).click();
    await owner.getByText(/invited colleague@acme\.test/i).waitFor();
    const message = await smtp.waitForMessage((received) => received.to.includes('colleague@acme.test'), 10_000);
    expect(message.subject).toMatch(/Acme/);
    const [invitation] = linksIn(message).filter((url) => url.includes('/invites/accept'));
    expect(invitation).toBeDefined();

    const colleague = await person(360);
    const colleagueRefusals = policyRefusals(colleague);
    await colleague.goto(invitation!);
    await heading(colleague, 'Join Acme as a viewer');
    await expectAccessible(colleague);
    expect(await colleague.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await colleague.getByRole('button', { name: 'Accept invitation' }).click();
    await colleague.waitForURL(`${site()}/account`);
    await colleague.getByRole('button', { name: 'Add a passkey' }).click();
    await colleague
      .getByText(/Passkey added/)
      .first()
      .waitFor();

    const members = await api.call('get', '/v1/team/members?limit=100');
    const member = (members.body.data as Array<{ id: string; email: string; role: string }>).find(
      (entry) => entry.email === 'colleague@acme.test',
    );
    expect(member?.role).toBe('viewer');

    // A partner app asks for read and admin; a viewer's consent page offers read only.
    await colleague.goto(sample.url);
    await colleague.getByRole('link', { name: 'Connect Form-Funnel' }).click();
    await heading(colleague, 'Partner CRM wants to access your Form-Funnel workspace');
    await expectAccessible(colleague);
    expect(await colleague.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await colleague.getByRole('button', { name: 'Deny' }).click();
    await heading(colleague, 'Not connected');
    expect(await colleague.textContent('#error')).toBe('access_denied');

    await colleague.goto(sample.url);
    await colleague.getByRole('link', { name: 'Connect Form-Funnel' }).click();
    await colleague.getByRole('button', { name: 'Approve' }).focus();
    await colleague.keyboard.press('Enter');
    await heading(colleague, 'Connected');
    expect(await colleague.textContent('#scope')).toBe('read');
    expect(await colleague.textContent('#member')).toBe('colleague@acme.test');
    expect(await colleague.textContent('#workspace')).toBe('Acme');

    // Removing the colleague revokes what they granted and ends their session.
    expect((await api.call('delete', `/v1/team/members/${member!.id}`)).status).toBe(200);
    // The approval is the client's one grant (Deny made none); it names no member once the member is gone.
    const grants = await api.rows('SELECT revoked_at, revocation_reason FROM oauth_grants WHERE client_id = ?', clientId);
    expect(grants).toEqual([{ revoked_at: expect.any(String), revocation_reason: 'member_removed' }]);
    await colleague.goto(`${site()}/account`);
    await heading(colleague, 'Sign in to Form-Funnel');

    expect([...ownerRefusals, ...colleagueRefusals]).toEqual([]);
  });
});
