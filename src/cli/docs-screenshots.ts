/**
 * `npm run docs:screenshots`: pictures of a hosted form's page for the "Host a form" guide and the README, taken with
 * headless Chromium (Debian's, never a downloaded one) from the app in this process, into docs/images/hosted-forms/.
 * Run it after changing the page; the images are committed.
 */

import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../chromium.js';
import { buildHostedAssets } from '../hosted/build.js';
import { startDemoServer } from '../hosted/demo-server.js';

const outDir = fileURLToPath(new URL('../../docs/images/hosted-forms/', import.meta.url));
mkdirSync(outDir, { recursive: true });
await buildHostedAssets();
const { base, form, close } = await startDemoServer({ accent_color: '#0f766e' });

const browser = await chromium.launch(chromiumLaunchOptions);

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${outDir}${name}.png`, fullPage: true });
  process.stdout.write(`docs/images/hosted-forms/${name}.png\n`);
}

try {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 360, height: 640 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const heading = (name: string) => page.getByRole('heading', { level: 2, name }).waitFor();
  await page.goto(`${base}/f/${form.id}`);
  await heading('Who are you?');
  await shoot(page, 'step-1');
  await page.fill('[name="full_name"]', 'Ana Ruiz');
  await page.fill('[name="email"]', 'ana@');
  await page.click('#next');
  await page.locator('#error-email:not(:empty)').waitFor();
  await shoot(page, 'validation-error');
  await page.fill('[name="email"]', 'ana@northwind.example');
  await page.click('#next');
  await heading('About your company');
  await page.check('[name="company_size"][value="201_plus"]');
  await page.check('[name="has_budget"][value="true"]');
  await shoot(page, 'step-2');
  await page.click('#next');
  await heading('Budget');
  await page.fill('[name="budget_usd"]', '80000');
  await page.click('#next');
  await heading('Anything else?');
  await page.check('[name="gdpr"]');
  await page.click('#next');
  await heading('Thank you!');
  await shoot(page, 'thank-you');
  await context.close();
} finally {
  await browser.close();
  await close();
}
