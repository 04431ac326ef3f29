/**
 * `npm run docs:screenshots`: pictures of a hosted form's page for the "Host a form" guide and the README, taken with
 * headless Chromium (Debian's, never a downloaded one) from the app in this process, into docs/images/hosted-forms/:
 * the demo form's steps, an error and its thanks; a German form with a logo, its accent colour, welcome and ending;
 * an Arabic form, right to left. Run it after changing the page; the images are committed.
 */

import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { chromiumLaunchOptions } from '../chromium.js';
import { buildHostedAssets } from '../hosted/build.js';
import { type DemoFormBody, startDemoServer } from '../hosted/demo-server.js';

const outDir = fileURLToPath(new URL('../../docs/images/hosted-forms/', import.meta.url));
mkdirSync(outDir, { recursive: true });

/** A German logistics company's form: its logo, its colour, its own welcome and ending. */
const germanForm: DemoFormBody = {
  name: 'Nordwind Logistik',
  language: 'de',
  hosting: { enabled: true },
  appearance: { accent_color: '#1d4ed8' },
  welcome: {
    title: 'Beratung anfragen',
    text: 'Drei kurze Fragen zu Ihrem Versand. Wir melden uns innerhalb eines Werktags.',
    // The page's own word for it, in German ("Starten").
    button_label: null,
  },
  ending: { title: 'Danke, wir melden uns!', text: 'Eine Bestätigung ist unterwegs in Ihr Postfach.', redirect_url: null },
  steps: [
    {
      id: 'kontakt',
      title: 'Wer sind Sie?',
      fields: [
        { type: 'short_text', ref: 'name', label: 'Ihr Name', required: true, max_length: 120 },
        { type: 'email', ref: 'email', label: 'Geschäftliche E-Mail', required: true },
      ],
    },
    {
      id: 'versand',
      title: 'Ihr Versand',
      fields: [
        {
          type: 'single_choice',
          ref: 'sendungen',
          label: 'Sendungen im Monat',
          required: true,
          options: [
            { value: 'bis_100', label: 'Bis 100', score: 0 },
            { value: 'bis_1000', label: '100 bis 1.000', score: 0 },
            { value: 'mehr', label: 'Mehr als 1.000', score: 0 },
          ],
        },
        { type: 'consent', ref: 'einwilligung', label: 'Ich bin einverstanden, kontaktiert zu werden.', required: true },
      ],
    },
  ],
};

/** The same kind of form in Arabic: the page's words from its Arabic catalogue, laid out right to left. */
const arabicForm: DemoFormBody = {
  name: 'طلب عرض توضيحي',
  language: 'ar',
  hosting: { enabled: true },
  appearance: { accent_color: '#0f766e' },
  steps: [
    {
      id: 'contact',
      title: 'من أنت؟',
      fields: [
        { type: 'short_text', ref: 'full_name', label: 'الاسم الكامل', required: true, max_length: 120 },
        { type: 'email', ref: 'email', label: 'البريد الإلكتروني للعمل', required: true },
      ],
    },
    {
      id: 'company',
      title: 'عن شركتك',
      fields: [
        {
          type: 'single_choice',
          ref: 'company_size',
          label: 'حجم الشركة',
          required: true,
          options: [
            { value: 'small', label: 'من 1 إلى 10', score: 0 },
            { value: 'medium', label: 'من 11 إلى 200', score: 0 },
            { value: 'large', label: 'أكثر من 200', score: 0 },
          ],
        },
      ],
    },
  ],
};

/** The German company's logo, drawn by Chromium as a PNG with a transparent background (what a customer uploads). */
async function drawLogo(browser: Browser): Promise<Buffer> {
  const page = await browser.newPage({ deviceScaleFactor: 2 });
  await page.setContent(`<!doctype html><html><body style="margin:0">
    <div id="logo" style="display:inline-flex;align-items:center;gap:10px;padding:4px 6px;
      font:800 30px/1 system-ui,sans-serif;letter-spacing:-0.5px;color:#1e3a8a">
      <svg width="36" height="36" viewBox="0 0 36 36" aria-hidden="true">
        <circle cx="18" cy="18" r="17" fill="#1d4ed8"/>
        <path d="M9 23 L18 8 L27 23 Z" fill="#fff"/><path d="M7 27 H29" stroke="#fff" stroke-width="3" stroke-linecap="round"/>
      </svg>Nordwind</div></body></html>`);
  const image = await page.locator('#logo').screenshot({ omitBackground: true, type: 'png' });
  await page.close();
  return image;
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${outDir}${name}.png`, fullPage: true });
  process.stdout.write(`docs/images/hosted-forms/${name}.png\n`);
}

await buildHostedAssets();
const demo = await startDemoServer({ accent_color: '#0f766e' });
const { base, form } = demo;
const browser = await chromium.launch(chromiumLaunchOptions);

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

  const german = await demo.createForm(germanForm);
  await demo.setLogo(german.id, await drawLogo(browser), 'image/png');
  await page.goto(`${base}/f/${german.id}`);
  await heading('Beratung anfragen');
  // The logo loaded and decoded before the picture is taken.
  await page.evaluate("document.querySelector('main img').decode()");
  await shoot(page, 'welcome');
  await page.click('#start');
  await heading('Wer sind Sie?');
  await page.fill('[name="name"]', 'Jana Weber');
  await page.fill('[name="email"]', 'jana@');
  await page.click('#next');
  await page.locator('#error-email:not(:empty)').waitFor();
  await shoot(page, 'branded-step');
  await page.fill('[name="email"]', 'jana.weber@spedition.example');
  await page.click('#next');
  await heading('Ihr Versand');
  await page.check('[name="sendungen"][value="bis_1000"]');
  await page.check('[name="einwilligung"]');
  await page.click('#next');
  await heading('Danke, wir melden uns!');
  await shoot(page, 'ending');

  const arabic = await demo.createForm(arabicForm);
  await page.goto(`${base}/f/${arabic.id}`);
  await heading('من أنت؟');
  await page.fill('[name="full_name"]', 'ليلى حداد');
  await page.fill('[name="email"]', 'layla@haddad.example');
  await page.click('#next');
  await heading('عن شركتك');
  await page.check('[name="company_size"][value="medium"]');
  await shoot(page, 'right-to-left');
  await context.close();
} finally {
  await browser.close();
  await demo.close();
}
