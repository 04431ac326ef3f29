/**
 * The passkey script on its own, before any real route: the account page registers a passkey and the sign-in page
 * signs in with it, in Chromium with a virtual authenticator (one per browser context: one person), against a tiny
 * server that speaks the protocol of src/people/passkey-protocol.ts with @simplewebauthn/server's own option and
 * verification functions. Also what the person reads when the server refuses or the ceremony times out.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountPage, signInPage } from '../../src/http/people-views.js';
import { passkeyEndpoints, type RegistrationVerification, type SignInVerification } from '../../src/people/passkey-protocol.js';
import { sharedChromium } from '../support/chromium.js';
import { policyRefusals } from '../support/hosted-browser.js';
import { type PeoplePagesServer, startPeoplePagesServer } from '../support/people-pages.js';

let server: PeoplePagesServer;
let browser: Browser;
const contexts: BrowserContext[] = [];

/** What the stub server keeps: the last challenge of each ceremony, the registered credentials, what it was sent. */
const state = {
  challenge: { register: '', signIn: '' },
  credentials: [] as Array<WebAuthnCredential & { name: string | undefined }>,
  signedIn: [] as Array<{ credentialId: string; next: string | undefined; newCounter: number }>,
  requests: [] as Array<{ path: string; origin: string | undefined; contentType: string | undefined; cookie: string | undefined }>,
  /** When set, the next options request is refused with it. */
  refuseOptions: undefined as { status: number; message: string } | undefined,
  /** The sign-in options' timeout (ms), for the ceremony that runs out of time. */
  signInTimeout: 60_000,
};

const rpID = 'localhost';

beforeAll(async () => {
  server = await startPeoplePagesServer();
  const expectedOrigin = server.origin;
  const seen = (path: string, headers: Record<string, string | string[] | undefined>) =>
    state.requests.push({
      path,
      origin: headers.origin as string | undefined,
      contentType: headers['content-type'] as string | undefined,
      cookie: headers.cookie as string | undefined,
    });
  const refusal = () => {
    const refused = state.refuseOptions;
    state.refuseOptions = undefined;
    return refused && { status: refused.status, body: { message: refused.message } };
  };

  server.json.set(passkeyEndpoints.register.options, async (_body, headers) => {
    seen(passkeyEndpoints.register.options, headers);
    const refused = refusal();
    if (refused) return refused;
    const options = await generateRegistrationOptions({
      rpName: 'Form-Funnel',
      rpID,
      userName: 'ana@acme.test',
      attestationType: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: state.credentials.map(({ id, transports }) => ({ id, transports })),
    });
    state.challenge.register = options.challenge;
    return { body: { options } };
  });

  server.json.set(passkeyEndpoints.register.verify, async (body, headers) => {
    seen(passkeyEndpoints.register.verify, headers);
    const { response, name } = body as RegistrationVerification;
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: state.challenge.register,
      expectedOrigin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
    if (!verified.verified) return { status: 400, body: { message: 'That passkey could not be checked.' } };
    state.credentials.push({ ...verified.registrationInfo.credential, name });
    return { body: { redirect: '/account-added' } };
  });

  server.json.set(passkeyEndpoints['sign-in'].options, async (_body, headers) => {
    seen(passkeyEndpoints['sign-in'].options, headers);
    const refused = refusal();
    if (refused) return refused;
    const options = await generateAuthenticationOptions({ rpID, userVerification: 'required', timeout: state.signInTimeout });
    state.challenge.signIn = options.challenge;
    return { body: { options } };
  });

  server.json.set(passkeyEndpoints['sign-in'].verify, async (body, headers) => {
    seen(passkeyEndpoints['sign-in'].verify, headers);
    const { response, next } = body as SignInVerification;
    const credential = state.credentials.find(({ id }) => id === response.id);
    if (!credential) return { status: 400, body: { message: 'That passkey is not registered here.' } };
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: state.challenge.signIn,
      expectedOrigin,
      expectedRPID: rpID,
      credential,
      requireUserVerification: true,
    });
    if (!verified.verified) return { status: 400, body: { message: 'That passkey could not be checked.' } };
    credential.counter = verified.authenticationInfo.newCounter;
    state.signedIn.push({ credentialId: credential.id, next, newCounter: verified.authenticationInfo.newCounter });
    return { body: { redirect: next ?? '/account' } };
  });

  const assets = server.assets;
  server.pages.set('/account', accountPage(assets, { account: { email: 'ana@acme.test', name: null }, memberships: [], passkeys: [] }));
  server.pages.set(
    '/account-added',
    accountPage(assets, { account: { email: 'ana@acme.test', name: null }, memberships: [], passkeys: [] }),
  );
  server.pages.set('/sign-in', signInPage(assets, { next: '/welcome?from=passkey' }));
  server.pages.set('/welcome', signInPage(assets, { notice: 'Welcome back.' }));
  browser = await sharedChromium();
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await server?.close();
});

/** A browser context with a virtual authenticator of its own (a platform passkey with user verification). */
async function personWithAuthenticator(): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 360, height: 740 } });
  contexts.push(context);
  const page = await context.newPage();
  const devtools = await context.newCDPSession(page);
  await devtools.send('WebAuthn.enable');
  await devtools.send('WebAuthn.addVirtualAuthenticator', {
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

const statusText = (page: Page) => page.locator('#passkey-status').textContent();

describe('the passkey script against a server speaking its protocol', () => {
  it('when a person adds a passkey and then signs in with it, then both ceremonies verify and the page follows each redirect', async () => {
    const page = await personWithAuthenticator();
    const refusals = policyRefusals(page);
    await page.goto(`${server.origin}/account`);
    await page.getByLabel('Name for the new passkey (optional)').fill('  Test laptop  ');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(`${server.origin}/account-added`);
    expect(state.credentials).toHaveLength(1);
    expect(state.credentials[0]!.name).toBe('Test laptop');

    await page.goto(`${server.origin}/sign-in`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${server.origin}/welcome?from=passkey`);
    expect(state.signedIn).toEqual([
      { credentialId: state.credentials[0]!.id, next: '/welcome?from=passkey', newCounter: expect.any(Number) },
    ]);

    // Each request was a same-origin JSON POST that carried the page's cookie, in the protocol's order.
    expect(state.requests.map(({ path }) => path)).toEqual([
      passkeyEndpoints.register.options,
      passkeyEndpoints.register.verify,
      passkeyEndpoints['sign-in'].options,
      passkeyEndpoints['sign-in'].verify,
    ]);
    for (const request of state.requests) {
      expect(request).toEqual({ path: request.path, origin: server.origin, contentType: 'application/json', cookie: 'probe=1' });
    }
    expect(refusals).toEqual([]);
  });

  it('when the server refuses the options, then its message is shown and the button can be pressed again', async () => {
    const page = await personWithAuthenticator();
    await page.goto(`${server.origin}/sign-in`);
    state.refuseOptions = { status: 429, message: 'Too many sign-in attempts. Wait a minute.' };
    const button = page.getByRole('button', { name: 'Sign in with a passkey' });
    await button.click();
    await expect.poll(() => statusText(page)).toBe('Too many sign-in attempts. Wait a minute.');
    await expect(button.isEnabled()).resolves.toBe(true);
    await expect(page.evaluate('document.activeElement.dataset.passkey')).resolves.toBe('sign-in');
    expect(page.url()).toBe(`${server.origin}/sign-in`);
  });

  it('when a passkey the server does not know signs in, then the refusal is shown and the page stays', async () => {
    const page = await personWithAuthenticator();
    await page.goto(`${server.origin}/account`);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(`${server.origin}/account-added`);
    state.credentials.pop();
    await page.goto(`${server.origin}/sign-in`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect.poll(() => statusText(page)).toBe('That passkey is not registered here.');
    expect(page.url()).toBe(`${server.origin}/sign-in`);
  });

  it('when no passkey answers before the timeout, then the page says the request was cancelled or timed out, calmly', async () => {
    const page = await personWithAuthenticator();
    state.signInTimeout = 1_000;
    try {
      await page.goto(`${server.origin}/sign-in`);
      // This person's authenticator holds no passkey for the site: nothing can answer.
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await expect
        .poll(() => statusText(page), { timeout: 30_000 })
        .toBe('The passkey request was cancelled or timed out. Nothing changed: you can try again.');
      await expect(page.getByRole('button', { name: 'Sign in with a passkey' }).isEnabled()).resolves.toBe(true);
    } finally {
      state.signInTimeout = 60_000;
    }
  });
});
