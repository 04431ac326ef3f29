/**
 * The dashboard in headless Chromium: an API on https://localhost:PORT (WebAuthn and the dashboard's secure-context
 * APIs want a name, not an IP address), a browser, and members signed in the way a person is: a one-time sign-in
 * link's Continue (what `npm run admin -- bootstrap` prints), then `/dashboard/`, which authorizes with PKCE.
 *
 * `requests(page)` records every request the page's scripts make (fetch and XHR), for the test that checks each is a
 * documented `/v1` operation.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { ensureAccount } from '../../src/domain/people/accounts.js';
import { signInLinkFor } from '../../src/domain/people/links.js';
import type { AppOptions } from '../../src/http/app.js';
import { sharedChromium } from './chromium.js';
import { axeViolations, policyRefusals } from './hosted-browser.js';
import { generousLimits, useWatchedApi } from './http-checks.js';

export interface RecordedRequest {
  method: string;
  /** The path and query on the service's origin (`/v1/forms?limit=20`). */
  path: string;
}

export interface SignedIn {
  page: Page;
  context: BrowserContext;
  /** Every fetch/XHR the page's scripts made so far, in order. */
  requests: RecordedRequest[];
  /** Content-Security-Policy refusals the page reported (should stay empty). */
  refusals: string[];
}

export function useDashboard(options: () => Partial<AppOptions> & { plan?: 'free' | 'business' | 'enterprise' } = () => ({})) {
  const site = () => api.baseUrl.replace('127.0.0.1', 'localhost');
  const api = useWatchedApi(() => ({ rateLimits: generousLimits, localBaseUrl: site, ...options() }));
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    // The worker's one browser (chromium.ts); this file's contexts are its own and closed after it.
    browser = await sharedChromium();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  /** A member with a browser of their own, signed in, on the dashboard's first screen (or `path` below it). */
  async function signIn(email = 'owner@acme.test', view: { width?: number; path?: string } = {}): Promise<SignedIn> {
    if (!browser) throw new Error('The browser starts in beforeAll');
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: view.width ?? 1440, height: 900 },
      acceptDownloads: true,
    });
    contexts.push(context);
    const page = await context.newPage();
    const requests: RecordedRequest[] = [];
    page.on('request', (request) => {
      if (request.resourceType() !== 'fetch' && request.resourceType() !== 'xhr') return;
      const url = new URL(request.url());
      requests.push({ method: request.method(), path: `${url.pathname}${url.search}` });
    });
    const refusals = policyRefusals(page);
    const link = await signInLinkFor(api.services, await ensureAccount(api.services, email));
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/account/);
    await page.goto(`${site()}/dashboard/${view.path ?? ''}`);
    await page
      .getByRole('navigation', { name: 'Dashboard' })
      .waitFor({ timeout: 10_000 })
      .catch(async (error: unknown) => {
        throw new Error(`The dashboard did not start at ${page.url()}: ${await page.locator('body').textContent()}`, { cause: error });
      });
    return { page, context, requests, refusals };
  }

  return { api, site, signIn, axeViolations };
}

/** The requests that could change something: all but GETs and the sign-in's OAuth token exchange (a viewer's: none). */
export const writesOf = (requests: RecordedRequest[]): RecordedRequest[] =>
  requests.filter((request) => request.method !== 'GET' && !(request.method === 'POST' && request.path === '/v1/oauth/token'));

/** The level-1 heading of the screen, once it is shown. */
export const screenHeading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();
