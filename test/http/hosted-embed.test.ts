/**
 * The embed and the pages around it in headless Chromium, as a website owner meets them: the frame as tall as its
 * content (±2 px) at every step, when an error shows, after the thanks and on a narrower screen, shrinking as well as
 * growing; a redirect request taken only from the frame embed.js made, on the service's origin, and only to an
 * https:// address; no console error and no failed request on the hosted page, the embed or the not-found page (the
 * icon is served); and a test key's refusal explained in the frame, where a live key's stays bare. The store plays no
 * part here (the pages' answers per store are in hosted-page.test.ts and hosted-not-found.test.ts): `api` only.
 */
import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createForm } from '../support/factories.js';
import { absentId } from '../support/http-checks.js';
import { pngImage } from '../support/images.js';
import { createPublishableKey } from '../support/publishable-keys.js';
import { useHostedBrowser } from './hosted-browser-support.js';
import { demoForm } from './submissions-support.js';

// The service's own address as its base URL: the logo it hands out is on the page's origin.
const { api, pages, port, openPage } = useHostedBrowser({ ownBaseUrl: true });

const customerOrigin = () => `https://localhost:${port()}`;

/** Puts a customer's page at `path` that embeds `formId` with `key`, and returns its address. */
function embeddingPage(path: string, formId: string, key: string): string {
  pages.set(
    path,
    // The site's own icon named, so that its server's 404 for /favicon.ico is not among the page's problems.
    `<!doctype html><html lang="en"><head><title>Acme</title><link rel="icon" href="data:,"></head><body><h1>Acme</h1>
    <script src="${api.baseUrl}/embed.js" data-form="${formId}" data-key="${key}" data-title="Demo request" async></script>
    <p id="after">Below the form</p></body></html>`,
  );
  return `${customerOrigin()}${path}`;
}

/** The frame's document (the hosted page), once embed.js has made it. */
async function formFrame(page: Page): Promise<Frame> {
  await page.locator('iframe[title="Demo request"]').waitFor();
  const handle = await page.locator('iframe[title="Demo request"]').elementHandle();
  const frame = await handle!.contentFrame();
  await frame!.waitForLoadState();
  return frame!;
}

/** The frame's height on the customer's page, and its content's in its own document. */
async function heights(page: Page, frame: Frame): Promise<{ frame: number; content: number; overflow: number }> {
  const frameHeight = (await page.evaluate("document.querySelector('iframe').getBoundingClientRect().height")) as number;
  const [content, overflow] = (await frame.evaluate(
    '[document.documentElement.getBoundingClientRect().height, document.documentElement.scrollHeight - innerHeight]',
  )) as [number, number];
  return { frame: frameHeight, content, overflow };
}

/** Waits until the frame is as tall as its content, ±2 px, and nothing in it scrolls; returns that height. */
async function fitted(page: Page, frame: Frame): Promise<number> {
  await expect
    .poll(async () => {
      const { frame: height, content, overflow } = await heights(page, frame);
      return Math.abs(height - content) <= 2 && overflow <= 1;
    })
    .toBe(true);
  return (await heights(page, frame)).frame;
}

/**
 * Console errors and failed requests (refused, or answered 400 or more) of a page and its frames, except the 404 of a
 * not-found page itself (`notFoundPages`), which Chromium also logs as an error: that status is the page's point.
 */
function problemsOf(page: Page, notFoundPages: readonly string[]): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error' || notFoundPages.includes(message.location().url)) return;
    problems.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400 && !notFoundPages.includes(response.url())) problems.push(`${response.status()}: ${response.url()}`);
  });
  return problems;
}

describe('the embed’s height', () => {
  it('when a respondent goes through the embedded form, then the frame is as tall as its content at every step, after an error and after the thanks: growing and shrinking', async () => {
    const form = await createForm(api, demoForm({ name: 'Embedded heights', hosting: { enabled: true } }));
    const key = await createPublishableKey(api, { environment: 'live', allowed_origins: [customerOrigin()] });
    const page = await openPage();
    await page.goto(embeddingPage('/heights', form.id, key.value));
    const frame = await formFrame(page);
    const heading = (name: string) => frame.getByRole('heading', { level: 2, name }).waitFor();

    await heading('Who are you?');
    const first = await fitted(page, frame);
    // Below its starting height (32rem): the old frame could only grow.
    expect(first).toBeLessThan(512);
    await frame.fill('[name="full_name"]', 'Eve Park');
    await frame.fill('[name="email"]', 'eve@');
    await frame.click('#next');
    await frame.locator('#error-email:not(:empty)').waitFor();
    const withError = await fitted(page, frame);
    expect(withError).toBeGreaterThan(first);

    await frame.fill('[name="email"]', 'eve@park.example');
    await frame.click('#next');
    await heading('About your company');
    const second = await fitted(page, frame);
    expect(second).toBeGreaterThan(withError);
    await frame.check('[name="company_size"][value="1_10"]');
    await frame.check('[name="has_budget"][value="false"]');
    await frame.click('#next');
    await heading('Anything else?');
    const last = await fitted(page, frame);
    expect(last).toBeLessThan(second);
    await frame.check('[name="gdpr"]');
    await frame.click('#next');
    await frame
      .getByRole('status')
      .filter({ has: frame.getByRole('heading', { level: 2 }) })
      .waitFor();
    const ending = await fitted(page, frame);
    expect(ending).toBeLessThan(last);

    // The text under the frame follows its bottom edge: no blank space between them.
    const gap = (await page.evaluate(
      "document.querySelector('#after').getBoundingClientRect().top - document.querySelector('iframe').getBoundingClientRect().bottom",
    )) as number;
    expect(gap).toBeLessThanOrEqual(20); // the paragraph's own top margin (1em)
  });

  it('when the customer’s page gets narrower and wider again, then the frame grows with its wrapped content and shrinks back', async () => {
    const demo = demoForm({ name: 'Embedded widths', hosting: { enabled: true } });
    const [first, ...rest] = demo.steps!;
    // A paragraph that wraps onto more lines in a narrower frame.
    const description = 'We read every request ourselves and answer within one working day, with a time for a call. '.repeat(3).trim();
    const form = await createForm(api, { ...demo, steps: [{ ...first!, description }, ...rest] });
    const key = await createPublishableKey(api, { environment: 'live', allowed_origins: [customerOrigin()] });
    const page = await openPage({ width: 800 });
    await page.goto(embeddingPage('/widths', form.id, key.value));
    const frame = await formFrame(page);
    await frame.getByRole('heading', { level: 2, name: 'Who are you?' }).waitFor();
    const wide = await fitted(page, frame);
    await page.setViewportSize({ width: 320, height: 740 });
    await expect.poll(async () => (await heights(page, frame)).frame).toBeGreaterThan(wide);
    await fitted(page, frame);
    await page.setViewportSize({ width: 800, height: 740 });
    await expect.poll(async () => (await heights(page, frame)).frame).toBeLessThan(wide + 3);
    expect(Math.abs((await fitted(page, frame)) - wide)).toBeLessThanOrEqual(2);
  });
});

describe('the embed’s redirect', () => {
  it('when a redirect request comes from another frame, the site’s page, another origin or to a non-https address, then it is ignored; from its frame to https, the window goes there', async () => {
    const form = await createForm(api, demoForm({ name: 'Embedded redirect', hosting: { enabled: true } }));
    const key = await createPublishableKey(api, { environment: 'live', allowed_origins: [customerOrigin()] });
    const target = `${customerOrigin()}/thanks?ref=sub_123`;
    pages.set(
      '/thanks?ref=sub_123',
      '<!doctype html><html lang="en"><head><title>Thanks</title></head><body><h1>Thanks</h1></body></html>',
    );
    pages.set('/other-frame', '<!doctype html><html lang="en"><head><title>Other</title></head><body></body></html>');
    const address = embeddingPage('/redirect', form.id, key.value);
    // Two more frames: one of the service's own origin that embed.js did not make (its not-found page), one of the
    // customer's other origin (https://127.0.0.1:port).
    pages.set(
      '/redirect',
      pages
        .get('/redirect')!
        .replace(
          '<p id="after">',
          `<iframe id="stray" title="Stray" src="${api.baseUrl}/f/${absentId('form')}"></iframe>` +
            `<iframe id="foreign" title="Foreign" src="https://127.0.0.1:${port()}/other-frame"></iframe><p id="after">`,
        ),
    );
    const page = await openPage();
    await page.goto(address);
    const frame = await formFrame(page);
    await frame.getByRole('heading', { level: 2, name: 'Who are you?' }).waitFor();
    const stray = page.frames().find((candidate) => candidate.url().includes(absentId('form')))!;
    const foreign = page.frames().find((candidate) => candidate.url().endsWith('/other-frame'))!;
    await stray.waitForLoadState();
    await foreign.waitForLoadState();
    const ask = (from: Frame, url: string) =>
      from.evaluate(`parent.postMessage({ type: 'form-funnel:redirect', url: ${JSON.stringify(url)} }, '*')`);

    const heightBefore = (await heights(page, frame)).frame;
    await ask(stray, target);
    await ask(foreign, target);
    await page.evaluate(`postMessage({ type: 'form-funnel:redirect', url: ${JSON.stringify(target)} }, '*')`);
    await stray.evaluate("parent.postMessage({ type: 'form-funnel:height', height: 1234 }, '*')");
    for (const url of [
      'javascript:alert(1)',
      `http://localhost:${port()}/thanks?ref=sub_123`,
      'data:text/html,hi',
      '/thanks',
      'https://u:p@localhost/',
    ]) {
      await ask(frame, url);
    }
    await page.waitForTimeout(300);
    expect(page.url()).toBe(address);
    expect((await heights(page, frame)).frame).toBe(heightBefore);

    await ask(frame, target);
    await page.waitForURL(target);
    expect(await page.textContent('h1')).toBe('Thanks');
  });
});

describe('an embedded form that ends with a redirect', () => {
  it('when a respondent completes it, then the whole window goes to the ending’s address, with the submission’s id', async () => {
    pages.set('/landed', '<!doctype html><html lang="en"><head><title>Landed</title></head><body><h1>Landed</h1></body></html>');
    const form = await createForm(api, {
      name: 'Redirecting',
      hosting: { enabled: true },
      ending: { title: 'Thanks', redirect_url: `${customerOrigin()}/landed?ref={submission_id}` },
      steps: [{ id: 'hello', title: 'Say hello', fields: [{ type: 'email', ref: 'email', label: 'Work email', required: true }] }],
    });
    const key = await createPublishableKey(api, { environment: 'live', allowed_origins: [customerOrigin()] });
    const page = await openPage();
    await page.goto(embeddingPage('/leaving', form.id, key.value));
    const frame = await formFrame(page);
    await frame.getByRole('heading', { level: 2, name: 'Say hello' }).waitFor();
    await frame.fill('[name="email"]', 'ida@berg.example');
    await frame.click('#next');
    await page.waitForURL((url) => url.pathname === '/landed');
    expect(await page.textContent('h1')).toBe('Landed');
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data).toEqual([expect.objectContaining({ status: 'completed' })]);
    expect(new URL(page.url()).searchParams.get('ref')).toBe(listed.body.data[0].id);
  });
});

describe('console and network of the pages', () => {
  it('when a form is loaded and completed, embedded and on its own, and an unknown form’s page is opened, then no console error and no failed request (its logo loaded), and the page’s icon is one the browser reads', async () => {
    const form = await createForm(api, {
      name: 'Quiet page',
      hosting: { enabled: true },
      steps: [{ id: 'hello', title: 'Say hello', fields: [{ type: 'email', ref: 'email', label: 'Work email', required: true }] }],
    });
    // A logo, which the page loads from its own origin under its policy.
    const logo = await api.call('put', `/v1/forms/${form.id}/logo`).set('Content-Type', 'image/png').send(pngImage(64, 32));
    expect(logo.status).toBe(200);
    const key = await createPublishableKey(api, { environment: 'live', allowed_origins: [customerOrigin()] });
    const notFound = `${api.baseUrl}/f/${absentId('form')}`;
    const page = await openPage();
    const problems = problemsOf(page, [notFound]);

    const complete = async (frame: Frame | Page) => {
      await frame.getByRole('heading', { level: 2, name: 'Say hello' }).waitFor();
      await frame.fill('[name="email"]', 'ida@berg.example');
      await frame.click('#next');
      await frame
        .getByRole('status')
        .filter({ has: frame.getByRole('heading', { level: 2 }) })
        .waitFor();
    };
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await page.getByRole('heading', { level: 2, name: 'Say hello' }).waitFor();
    expect(
      await page.evaluate("document.querySelector('main img').decode().then(() => document.querySelector('main img').naturalWidth)"),
    ).toBe(64);
    await complete(page);
    // The icon the page names is one the browser reads (headless Chromium does not fetch icons on its own).
    expect(
      await page.evaluate(`(async () => {
      const icon = new Image();
      icon.src = document.querySelector('link[rel="icon"]').href;
      await icon.decode();
      return [new URL(icon.src).pathname, icon.naturalWidth, icon.naturalHeight];
    })()`),
    ).toEqual(['/favicon.ico', 32, 32]);
    await page.goto(embeddingPage('/quiet', form.id, key.value));
    await complete(await formFrame(page));
    expect((await page.goto(notFound))?.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Not found');
    expect(problems).toEqual([]);
  });
});

describe('a refused frame', () => {
  it('when a test key frames a live form, or frames from an origin it does not allow, then the frame says why; a live key’s refusal stays bare', async () => {
    const live = await createForm(api, demoForm({ name: 'Live form', hosting: { enabled: true } }));
    const test = await createForm(api, demoForm({ name: 'Test form', hosting: { enabled: true } }), api.workspace.test_admin_key);
    const testKey = await createPublishableKey(api, { environment: 'test', allowed_origins: [customerOrigin()] });
    const elsewhereKey = await createPublishableKey(api, { environment: 'test', allowed_origins: ['https://www.acme.example'] });
    const liveKey = await createPublishableKey(api, { environment: 'live', allowed_origins: [customerOrigin()] });
    const page = await openPage();
    const frameText = async (address: string) => {
      await page.goto(address);
      const frame = await formFrame(page);
      await frame.locator('h1').waitFor();
      return ((await frame.evaluate('document.body.innerText')) as string).replace(/\s+/g, ' ').trim();
    };

    expect(await frameText(embeddingPage('/test-key-live-form', live.id, testKey.value))).toContain(
      'is a test key and this form is a live form',
    );
    expect(await frameText(embeddingPage('/origin-not-allowed', test.id, elsewhereKey.value))).toContain(
      `on ${customerOrigin()}, is not among the key's allowed_origins`,
    );
    expect(await frameText(embeddingPage('/live-key-test-form', test.id, liveKey.value))).toContain(
      'is a live key and this form is a test form',
    );
    expect(await frameText(embeddingPage('/test-key-test-form', test.id, testKey.value))).toContain('Who are you?');
    const bare = await frameText(embeddingPage('/live-key-other', live.id, `svc_pub_live_${'x'.repeat(24)}`));
    expect(bare).toBe('Not found There is no form at this address.');
  });
});
