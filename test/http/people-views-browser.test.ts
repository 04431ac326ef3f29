/**
 * The people pages in Chromium, served with their real Content-Security-Policy and built files: at 360 px and
 * 1280 px, axe-core finds no violation, nothing scrolls sideways on a phone, Tab reaches every control and each
 * shows its focus, and the policy refuses nothing. With PEOPLE_PAGES_SCREENSHOTS=<dir>, each page's 360 px view is
 * saved there to be looked at.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedChromium } from '../support/chromium.js';
import { axeViolations, policyRefusals } from '../support/hosted-browser.js';
import { type PeoplePagesServer, startPeoplePagesServer, stubPeoplePages } from '../support/people-pages.js';

let server: PeoplePagesServer;
let browser: Browser;
const contexts: BrowserContext[] = [];
const screenshots = process.env.PEOPLE_PAGES_SCREENSHOTS;

beforeAll(async () => {
  server = await startPeoplePagesServer();
  for (const [name, html] of Object.entries(stubPeoplePages(server.assets))) server.pages.set(`/${name}`, html);
  browser = await sharedChromium();
  if (screenshots) mkdirSync(screenshots, { recursive: true });
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await server?.close();
});

/** One browser page per width, reused by every page's test (a fresh context each cost more than the checks). */
const tabs = new Map<number, { page: Page; refusals: string[] }>();

async function open(name: string, width: number): Promise<{ page: Page; refusals: string[] }> {
  let tab = tabs.get(width);
  if (!tab) {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width, height: 740 } });
    contexts.push(context);
    const page = await context.newPage();
    tab = { page, refusals: policyRefusals(page) };
    tabs.set(width, tab);
  }
  const { page, refusals } = tab;
  // This page's refusals only: the list is the same one the page's listener fills. Nor the cookie the last page set.
  refusals.length = 0;
  await page.context().clearCookies();
  const response = await page.goto(`${server.origin}/${name}`);
  expect(response?.status()).toBe(200);
  // The pages with a passkey button show it once their script has run (it starts hidden for browsers without one).
  if (server.pages.get(`/${name}`)!.includes('data-passkey')) await page.locator('button[data-passkey]').waitFor();
  return { page, refusals };
}

// Run in the page, as a string: the test program has no DOM library. Controls in tab order (no tabindex is used, so
// document order), a radio group counted once (Tab enters it at its checked radio).
const tabbableControls = `(() => {
  const visible = (element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== 'hidden';
  const all = [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea')].filter(visible);
  return all
    .filter((element) => element.type !== 'radio' || element.checked ||
      (!all.some((other) => other.type === 'radio' && other.name === element.name && other.checked) &&
        all.find((other) => other.type === 'radio' && other.name === element.name) === element))
    .map((element) => element.outerHTML);
})()`;

const focused = `(() => {
  const element = document.activeElement;
  const style = getComputedStyle(element);
  return { html: element.outerHTML, outlineStyle: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth) };
})()`;

const pageNames = Object.keys(stubPeoplePages({ stylesheet: '', script: '' }));

describe.each([360, 1280])('at %i px', (width) => {
  it.each(pageNames)(
    'when the %s page is opened, then axe-core finds no violation, nothing is wider than the screen, the policy ' +
      'refuses nothing, and Tab reaches every control in order with its focus shown',
    async (name) => {
      const { page, refusals } = await open(name, width);
      expect(await axeViolations(page)).toEqual([]);
      if (width === 360 && screenshots) await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
      const { scrollWidth, clientWidth } = (await page.evaluate(
        '({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth })',
      )) as { scrollWidth: number; clientWidth: number };
      expect(scrollWidth).toBeLessThanOrEqual(clientWidth);

      const controls = (await page.evaluate(tabbableControls)) as string[];
      expect(controls.length).toBeGreaterThan(0);
      const reached: string[] = [];
      for (const _control of controls) {
        await page.keyboard.press('Tab');
        const now = (await page.evaluate(focused)) as { html: string; outlineStyle: string; outlineWidth: number };
        reached.push(now.html);
        expect(now.outlineStyle, now.html).not.toBe('none');
        expect(now.outlineWidth, now.html).toBeGreaterThanOrEqual(2);
      }
      expect(reached).toEqual(controls);
      expect(refusals).toEqual([]);
    },
  );
});

describe('the script on its pages', () => {
  it('when the sign-in page has run its script, then the passkey button is shown and the status line is empty', async () => {
    const { page } = await open('sign-in', 360);
    await expect(page.getByRole('button', { name: 'Sign in with a passkey' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('status').filter({ hasText: /./ }).count()).resolves.toBe(0);
  });

  it('when JavaScript is off, then the sign-in page explains that a passkey needs it and offers the email link', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, javaScriptEnabled: false, viewport: { width: 360, height: 740 } });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${server.origin}/sign-in`);
    await expect(page.getByText('A passkey needs JavaScript, which is off in this browser.').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Sign in with a passkey' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Email me a sign-in link' }).isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Email address').isVisible()).resolves.toBe(true);
  });

  it('when the account page has no passkey, then the prompt offers a labelled name field and the Add button', async () => {
    const { page } = await open('account-no-passkey', 360);
    await expect(page.getByRole('heading', { level: 2, name: 'Add a passkey' }).isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Name for the new passkey (optional)').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Add a passkey' }).isVisible()).resolves.toBe(true);
  });

  it('when a passkey is listed, then its Remove button is named after it', async () => {
    const { page } = await open('account', 360);
    await expect(page.getByRole('button', { name: 'Remove Work laptop' }).count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: 'Remove Phone' }).count()).resolves.toBe(1);
  });

  it('when the consent page offers two workspaces, then they are one radio group with the chosen one checked', async () => {
    const { page } = await open('consent', 360);
    const group = page.getByRole('group', { name: 'Workspace' });
    await expect(group.getByRole('radio').count()).resolves.toBe(2);
    await expect(group.getByRole('radio', { name: /Beta Widgets International/ }).isChecked()).resolves.toBe(true);
  });
});
