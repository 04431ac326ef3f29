/**
 * `npm run dashboard:screenshots`: a picture of each dashboard screen at 1440 and 360 px wide, into
 * docs/images/dashboard/, taken in headless Chromium (Debian's) from the app in this process (SQLite in memory) with a
 * workspace worth looking at: the documented demo-request funnel, published and hosted, a dozen leads of every grade,
 * a webhook, a colleague invited, a publishable key. Run it after changing a screen; the images are committed.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { ensureAccount } from '../../src/domain/people/accounts.js';
import { signInLinkFor } from '../../src/domain/people/links.js';
import { buildHostedAssets } from '../../src/hosted/build.js';
import { testWebhookUrls } from '../http/integrations-support.js';
import { anaAnswers, budgetAnswers, demoForm, noBudgetAnswers } from '../http/submissions-support.js';
import { chromiumLaunchOptions } from '../support/chromium.js';
import { createForm, createIntegration, PUBLIC_URL, submit } from '../support/factories.js';
import { createTestApi } from '../support/harness.js';
import { pngImage } from '../support/images.js';

const outDir = fileURLToPath(new URL('../../docs/images/dashboard/', import.meta.url));
mkdirSync(outDir, { recursive: true });
await buildHostedAssets();

let site = '';
const rateLimits = {
  perKeyPerSecond: 100_000,
  perWorkspacePerMinute: 1_000_000,
  failedAuthPerAddressPerMinute: 100_000,
  publicPerAddressPerMinute: 100_000,
};
const api = await createTestApi({ rateLimits, localBaseUrl: () => site, webhookUrls: testWebhookUrls() });
site = api.baseUrl.replace('127.0.0.1', 'localhost');

const form = await createForm(
  api,
  demoForm({
    name: 'Demo request',
    hosting: { enabled: true },
    welcome: { title: 'Book a demo', text: 'Three short questions, then pick a time.', button_label: null },
    ending: { title: 'Thank you!', text: null, redirect_url: 'https://www.acme.test/demo/booked?ref={submission_id}' },
  }),
);
// The builder shows the form's logo as the API serves it.
await api.call('put', `/v1/forms/${form.id}/logo`).set('Content-Type', 'image/png').send(pngImage(160, 48));
await createForm(api, demoForm({ name: 'Webinar sign-up' }));
const leads = [
  { answers: anaAnswers(), utm: 'newsletter' },
  { answers: budgetAnswers(60_000, '201_plus'), utm: 'linkedin' },
  { answers: budgetAnswers(20_000, '11_200'), utm: 'newsletter' },
  { answers: noBudgetAnswers('11_200'), utm: 'google' },
  { answers: noBudgetAnswers('1_10'), utm: 'google' },
  { answers: budgetAnswers(5_000), utm: 'linkedin' },
];
let first = '';
for (const [index, lead] of [...leads, ...leads].entries()) {
  const email = `lead${index + 1}@example.com`;
  const created = await submit(api, {
    form_id: form.id,
    answers: { ...lead.answers, email },
    context: { utm: { source: lead.utm, medium: 'cpc', campaign: 'spring' } },
  });
  first ||= created.id;
}
const integration = await createIntegration(api, { url: PUBLIC_URL, events: ['submission.completed'] });
await api.call('post', '/v1/team/invites').send({ email: 'sam@acme.test', role: 'editor' });
await api.call('post', '/v1/publishable_keys').send({ name: 'Marketing site', allowed_origins: ['https://www.acme.test'] });

const browser = await chromium.launch({
  ...chromiumLaunchOptions,
  args: [...(chromiumLaunchOptions.args ?? []), '--host-resolver-rules=MAP localhost 127.0.0.1'],
});

/** The screen is on screen: a heading, and no "Loading" status left (locators: the page's policy forbids eval). */
async function settled(page: Page): Promise<void> {
  await page.locator('main h1').first().waitFor();
  await page
    .locator('main [role=status]', { hasText: /^Loading/ })
    .first()
    .waitFor({ state: 'detached' });
}

const screens: Array<[name: string, path: string]> = [
  ['forms', 'forms'],
  ['form-builder', `forms/${form.id}`],
  ['leads', 'leads'],
  ['lead', `leads/${first}`],
  ['analytics', `analytics?form_id=${form.id}`],
  ['integrations', 'integrations'],
  ['integration', `integrations/${integration.id}`],
  ['team', 'team'],
  ['keys', 'keys'],
  ['usage', 'usage'],
  ['audit', 'audit'],
];

try {
  for (const width of [1440, 360]) {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width, height: width > 400 ? 900 : 740 } });
    const page = await context.newPage();
    const link = await signInLinkFor(api.services, await ensureAccount(api.services, 'owner@acme.test'));
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/account/);
    for (const [name, path] of screens) {
      await page.goto(`${site}/dashboard/${path}`);
      await settled(page);
      await page.screenshot({ path: `${outDir}${name}-${width}.png`, fullPage: true });
      process.stdout.write(`docs/images/dashboard/${name}-${width}.png\n`);
    }
    await context.close();
  }
} finally {
  await browser.close();
  await api.close();
}
