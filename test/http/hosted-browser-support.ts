/**
 * What the hosted page's browser tests share: the test API (the demo funnel's webhooks go to test receivers), a server
 * of customer pages at https://localhost:port (another origin than the API's https://127.0.0.1:port), one Chromium,
 * and the steps a respondent takes. Call `useHostedBrowser()` at a test file's top level: it registers the hooks that
 * start and stop all of it.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { sharedChromium } from '../support/chromium.js';
import { testCertificate } from '../support/harness.js';
import { seriousViolations } from '../support/hosted-browser.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { testWebhookUrls } from './integrations-support.js';

/**
 * Customer pages over HTTPS at https://localhost:<port()> (another origin than the API's https://127.0.0.1:port; the
 * same pages at https://127.0.0.1:<port()> are yet another), opened in fresh contexts of the worker's Chromium
 * (sharedChromium).
 */
export function useCustomerPages() {
  /** Customer pages by path: with its query, or without for any query (a redirect's address carries an id). */
  const pages = new Map<string, string>();
  let pageServer: https.Server;
  let port: number;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    pageServer = https.createServer(await testCertificate(), (req, res) => {
      const page = pages.get(req.url ?? '') ?? pages.get((req.url ?? '').split('?', 1)[0]!);
      res.writeHead(page ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' }).end(page ?? 'not found');
    });
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    port = (pageServer.address() as AddressInfo).port;
    browser = await sharedChromium();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await new Promise((resolve) => pageServer?.close(resolve));
  });

  /** A page in a context of its own (its own storage), optionally on a screen `width` px wide. */
  async function openPage(options: { width?: number } = {}): Promise<Page> {
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: options.width ? { width: options.width, height: 740 } : undefined,
    });
    contexts.push(context);
    return context.newPage();
  }

  return { pages, port: () => port, openPage };
}

/**
 * With `ownBaseUrl`, the service takes its own address (https://127.0.0.1:port) as where respondents reach it, as a
 * server without PUBLIC_BASE_URL does: the addresses it hands out (a form's logo) are then on the page's own origin.
 */
export function useHostedBrowser(options: { ownBaseUrl?: boolean } = {}) {
  const api = useWatchedApi(() => ({
    rateLimits: generousLimits,
    webhookUrls: testWebhookUrls(),
    ...(options.ownBaseUrl ? { localBaseUrl: () => api.baseUrl } : {}),
  }));

  const customer = useCustomerPages();

  const heading = (page: Page, name: string) => page.getByRole('heading', { level: 2, name }).waitFor();

  /** Answers the demo's first step and sends it. */
  async function fillContact(page: Page, name: string, email: string): Promise<void> {
    await heading(page, 'Who are you?');
    await page.fill('[name="full_name"]', name);
    await page.fill('[name="email"]', email);
    await page.click('#next');
  }

  async function expectAccessible(page: Page): Promise<void> {
    expect(await seriousViolations(page)).toEqual([]);
  }

  return { api, pages: customer.pages, port: customer.port, openPage: customer.openPage, heading, fillContact, expectAccessible };
}
