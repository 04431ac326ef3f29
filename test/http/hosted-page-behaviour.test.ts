/**
 * What the hosted page does in the browser whatever the store: the form finished with the keyboard alone on a 360 px
 * wide screen; saved progress dropped when the form changes or its resume window ends; an answer left on a step the
 * respondent no longer passes cleared; a submission completed elsewhere ending the form; the embed on another origin's
 * page, where neither side's styles reach the other and the lead is attributed to the host page; a form's text that
 * looks like markup kept whole in the page's JSON block, as Chromium's own HTML parser reads it. The store's part in
 * these (a PATCH's null, a completed submission's 409) is tested on both stores in the HTTP suite, so this file runs in
 * the `api` project only (vitest.config.ts); hosted-browser.test.ts walks the page on both stores.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createForm } from '../support/factories.js';
import { asText } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';
import { useHostedBrowser } from './hosted-browser-support.js';
import { demoForm } from './submissions-support.js';

const { api, pages, port, openPage, heading, fillContact, expectAccessible } = useHostedBrowser();

describe('a hosted form page in a browser, whatever the store', () => {
  it('when a respondent uses only the keyboard on a 360 px wide screen, then they finish the form, budget step included (checked by axe too)', async () => {
    const form = await createForm(api, demoForm({ name: 'Keyboard demo', hosting: { enabled: true } }));
    const page = await openPage({ width: 360 });
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await heading(page, 'Who are you?');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);

    await page.keyboard.press('Tab');
    await page.keyboard.type('Kim Lee');
    await page.keyboard.press('Tab');
    await page.keyboard.type('kim@lee.example');
    await page.keyboard.press('Enter');
    await heading(page, 'About your company');
    await page.keyboard.press('Tab'); // the company size group: its first option
    await page.keyboard.press('ArrowDown'); // 11 to 200
    await page.keyboard.press('Tab'); // the budget group
    await page.keyboard.press('Space'); // yes
    await page.keyboard.press('Tab'); // Back
    await page.keyboard.press('Tab'); // Next
    await page.keyboard.press('Enter');
    await heading(page, 'Budget');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await expectAccessible(page); // the one step the first test's path skips
    await page.keyboard.press('Tab');
    await page.keyboard.type('80000');
    await page.keyboard.press('Enter');
    await heading(page, 'Anything else?');
    await page.keyboard.press('Tab'); // notes
    await page.keyboard.press('Tab'); // consent
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab'); // Back
    await page.keyboard.press('Tab'); // Submit
    await page.keyboard.press('Enter');
    await heading(page, 'Thank you!');

    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        status: 'completed',
        answers: {
          full_name: 'Kim Lee',
          email: 'kim@lee.example',
          company_size: '11_200',
          has_budget: true,
          budget_usd: 80000,
          gdpr: true,
        },
        visited_steps: ['contact', 'company', 'budget', 'finish'],
      }),
    ]);
  });

  it('when the form changes after a respondent saved progress, then a reload starts the new version afresh and it works', async () => {
    const form = await createForm(api, demoForm({ name: 'Changing demo', hosting: { enabled: true } }));
    const page = await openPage();
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await heading(page, 'Who are you?');
    await fillContact(page, 'Lea Roth', 'lea@roth.example');
    await heading(page, 'About your company');

    const changed = await api.call('patch', `/v1/forms/${form.id}`).send({
      steps: [{ id: 'hello', title: 'Say hello', fields: [{ type: 'email', ref: 'email', label: 'Work email', required: true }] }],
      logic: [],
      scoring: { rules: [], grades: [] },
    });
    expect(changed.status).toBe(200);
    await page.reload();
    await heading(page, 'Say hello');
    expect(await page.inputValue('[name="email"]')).toBe('');
    expect(await page.textContent('#next')).toBe('Submit');
    await page.fill('[name="email"]', 'lea@roth.example');
    await page.click('#next');
    await heading(page, 'Thank you!');
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}&status=completed`);
    expect(listed.body.data).toEqual([expect.objectContaining({ answers: { email: 'lea@roth.example' } })]);
  });

  it('when saved progress is past its resume window, then a reload forgets its answers and starts afresh', async () => {
    const form = await createForm(api, demoForm({ name: 'Expiring demo', hosting: { enabled: true } }));
    const page = await openPage();
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await fillContact(page, 'Max Berg', 'max@berg.example');
    await heading(page, 'About your company');
    const saved = JSON.parse((await page.evaluate(`localStorage.getItem('form-funnel:${form.id}')`)) as string);
    // Kept until the submission's resume window ends (30 days), as the API gave it.
    expect(Date.parse(saved.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect(Date.parse(saved.expiresAt) - Date.now()).toBeLessThan(31 * 86_400_000);

    const expired = JSON.stringify({ ...saved, expiresAt: new Date(Date.now() - 1000).toISOString() });
    await page.evaluate(`localStorage.setItem('form-funnel:${form.id}', ${JSON.stringify(expired)})`);
    await page.reload();
    await heading(page, 'Who are you?');
    expect(await page.inputValue('[name="full_name"]')).toBe('');
    expect(await page.evaluate(`localStorage.getItem('form-funnel:${form.id}')`)).toBeNull();
  });

  it('when a respondent answers a step, goes back and takes the other path, then the answer left behind is cleared', async () => {
    const form = await createForm(api, demoForm({ name: 'Changing course', hosting: { enabled: true } }));
    const page = await openPage();
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await fillContact(page, 'Ivo Sand', 'ivo@sand.example');
    await heading(page, 'About your company');
    await page.check('[name="company_size"][value="11_200"]');
    await page.check('[name="has_budget"][value="true"]');
    await page.click('#next');
    await heading(page, 'Budget');
    await page.fill('[name="budget_usd"]', '90000');
    await page.click('#next');
    await heading(page, 'Anything else?');
    await page.click('#back');
    await heading(page, 'Budget');
    await page.click('#back');
    await heading(page, 'About your company');
    await page.check('[name="has_budget"][value="false"]');
    await page.click('#next');
    await heading(page, 'Anything else?');
    await page.check('[name="gdpr"]');
    await page.click('#next');
    await heading(page, 'Thank you!');

    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        status: 'completed',
        answers: { full_name: 'Ivo Sand', email: 'ivo@sand.example', company_size: '11_200', has_budget: false, gdpr: true },
        visited_steps: ['contact', 'company', 'finish'],
      }),
    ]);
  });

  it('when the submission was completed elsewhere (another tab), then the next send finds it done and shows the thanks', async () => {
    const form = await createForm(api, demoForm({ name: 'Done elsewhere', hosting: { enabled: true } }));
    const page = await openPage();
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await fillContact(page, 'Uma Vos', 'uma@vos.example');
    await heading(page, 'About your company');
    // What another tab of the same browser would do: finish the submission with the stored resume token.
    const answers = { company_size: '1_10', has_budget: false, gdpr: true };
    const status = await page.evaluate(`(async () => {
      const progress = JSON.parse(localStorage.getItem('form-funnel:${form.id}'));
      const { api, key } = document.getElementById('hosted-form').dataset;
      const response = await fetch(api + '/public/submissions/' + progress.id, {
        method: 'PATCH',
        headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ resume_token: progress.resumeToken, status: 'completed', answers: ${JSON.stringify(answers)} }),
      });
      return response.status;
    })()`);
    expect(status).toBe(200);
    await page.check('[name="company_size"][value="1_10"]');
    await page.check('[name="has_budget"][value="false"]');
    await page.click('#next');
    await heading(page, 'Thank you!');
    expect(await page.evaluate(`localStorage.getItem('form-funnel:${form.id}')`)).toBeNull();
  });

  it('when the service refuses an answer the page cannot check, then its error stays while other fields change and clears when that answer does', async () => {
    const form = await createForm(api, demoForm({ name: 'Refused by the service', hosting: { enabled: true } }));
    const page = await openPage();
    // The service's verdict on an address the page finds well formed (a mailbox it knows does not exist, say).
    await page.route('**/public/submissions', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      await route.fulfill({
        status: 422,
        contentType: 'application/problem+json',
        body: JSON.stringify({
          type: 'validation_error',
          code: 'invalid_answers',
          status: 422,
          title: 'Validation failed',
          message: 'The answers have 1 problem; see details.errors.',
          request_id: 'req_0aB1cD2eF3gH4iJ5kL6mN7oP',
          details: { errors: [{ location: 'body', pointer: '/answers/email', code: 'invalid_email', field: 'email', message: 'bounces' }] },
        }),
      });
    });
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await fillContact(page, 'Ida Berg', 'ida@berg.example');
    const emailError = page.locator('.field[data-ref="email"] .error');
    await expect.poll(() => emailError.textContent()).toMatch(/\S/);
    expect(await page.getAttribute('[name="email"]', 'aria-invalid')).toBe('true');

    // Editing another field leaves the service's verdict on the address where it is.
    await page.fill('[name="full_name"]', 'Ida Berg-Lund');
    expect(await emailError.textContent()).toMatch(/\S/);
    expect(await page.getAttribute('[name="email"]', 'aria-invalid')).toBe('true');
    // Changing the address it was about clears it (the page's own check finds the new one well formed).
    await page.fill('[name="email"]', 'ida@lund.example');
    await expect.poll(() => emailError.textContent()).toBe('');
    expect(await page.getAttribute('[name="email"]', 'aria-invalid')).toBeNull();
    // And typing the refused address again brings it back: the verdict was about that answer.
    await page.fill('[name="email"]', 'ida@berg.example');
    await expect.poll(() => emailError.textContent()).toMatch(/\S/);
  });

  it('when a customer’s page on another origin embeds the form, then it works in its frame and neither side’s styles reach the other', async () => {
    const form = await createForm(api, demoForm({ name: 'Embedded demo', hosting: { enabled: true } }));
    const key = await createPublishableKey(api, { environment: 'live', allowed_origins: [`https://localhost:${port()}`] });
    pages.set(
      '/embed?utm_source=acme_blog&utm_campaign=spring',
      `<!doctype html><html lang="en"><head><title>Acme</title><style>
        * { color: rgb(255, 0, 0) !important; font-family: monospace !important; }
        button { display: none !important; }
      </style></head><body><h1 id="host">Acme</h1>
      <script src="${api.baseUrl}/embed.js" data-form="${form.id}" data-key="${key.value}" data-title="Demo request" async></script>
      </body></html>`,
    );
    const page = await openPage();
    await page.goto(`https://localhost:${port()}/embed?utm_source=acme_blog&utm_campaign=spring`);
    const frame = page.frameLocator('iframe[title="Demo request"]');
    await frame.getByRole('heading', { level: 2, name: 'Who are you?' }).waitFor();
    // Nothing of the page's styling reaches the host: its stylesheet loads in the frame's document only, so what
    // could leak is what embed.js adds to the host page, which is the frame alone (no stylesheet, no other element).
    expect(await page.evaluate('document.styleSheets.length')).toBe(1);
    expect(await page.evaluate('[...document.body.children].map((element) => element.tagName)')).toEqual(['H1', 'SCRIPT', 'IFRAME']);
    // The host's styles stay out of the frame: the frame's button shows, in its own colours.
    const next = frame.locator('#next');
    expect(await next.isVisible()).toBe(true);
    expect(await next.evaluate((button) => button.ownerDocument.defaultView!.getComputedStyle(button).color)).toBe('rgb(255, 255, 255)');
    // The frame follows the page's height (its default is 32rem, 512 px).
    await expect.poll(() => page.evaluate("document.querySelector('iframe').getBoundingClientRect().height")).not.toBe(512);

    await frame.locator('[name="full_name"]').fill('Eve Park');
    await frame.locator('[name="email"]').fill('eve@park.example');
    await next.click();
    await frame.getByRole('heading', { level: 2, name: 'About your company' }).waitFor();
    await frame.locator('[name="company_size"][value="1_10"]').check();
    await frame.locator('[name="has_budget"][value="false"]').check();
    await frame.locator('#next').click();
    await frame.locator('[name="gdpr"]').check();
    await frame.locator('#next').click();
    await frame.getByRole('heading', { level: 2, name: 'Thank you!' }).waitFor();
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    // The lead is attributed to the host page where the respondent landed, its campaign included; the frame's own
    // address (which carries the key) is not the landing page.
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        status: 'completed',
        answers: expect.objectContaining({ email: 'eve@park.example' }),
        hidden: { utm_source: 'acme_blog' },
        context: expect.objectContaining({
          landing_url: `https://localhost:${port()}/embed?utm_source=acme_blog&utm_campaign=spring`,
          utm: expect.objectContaining({ source: 'acme_blog', campaign: 'spring' }),
        }),
      }),
    ]);
  });
});

describe('a hosted page whose form text looks like markup', () => {
  /** What Chromium's HTML parser makes of the served page, read without running it. */
  interface ParsedPage {
    title: string;
    heading: string | undefined;
    body: string[];
    blocks: Array<{ id: string; text: string }>;
  }
  const parse = async (page: Page, html: string): Promise<ParsedPage> =>
    (await page.evaluate(`(() => {
      const doc = new DOMParser().parseFromString(${JSON.stringify(html)}, 'text/html');
      return {
        title: doc.title,
        heading: doc.querySelector('main#hosted-form > h1')?.textContent,
        body: [...doc.body.children].map((element) => element.tagName + '#' + element.id),
        blocks: [...doc.querySelectorAll('script[type="application/json"]')].map((block) => ({ id: block.id, text: block.textContent })),
      };
    })()`)) as ParsedPage;

  // One page for every case: each parses its own served HTML, then loads its own form's page over the last one.
  let page: Page;
  beforeAll(async () => {
    page = await openPage();
  });

  // Each ends the JSON block early, or keeps it open past its end tag, if written into it as it is: an end tag in
  // any case; a comment opening in one string and a script start tag in the next (the "double escaped" state, in
  // which the block's own end tag no longer ends it); and the line and paragraph separators, which JSON allows and
  // JavaScript before ES2019 did not.
  it.each([
    ['an end tag', 'Demo </script><p id="injected">x</p> request', 'Step </script><p id="injected">y</p>'],
    ['an end tag in other cases, with a space or a slash', 'Demo </SCRIPT >request', 'Step </sCrIpT/>one'],
    ['a comment opening, then a script start tag', 'Demo <!-- request', 'Step <script> one'],
    ['a script start tag inside a comment opening', 'Demo <!--<script> request', 'Step <!--<SCRIPT>'],
    ['the line and paragraph separators', 'Demo \u2028 request \u2029', 'Step \u2028\u2029 one'],
  ])(
    'when a form name and step title hold %s, then the page’s JSON block parses back to the exact strings, and the page shows them as text',
    async (_what, name, title) => {
      const demo = demoForm();
      const [first, ...rest] = demo.steps!;
      const form = await createForm(
        api,
        demoForm({
          name,
          hosting: { enabled: true },
          steps: [{ ...first!, title, description: `About ${name}` }, ...rest],
        }),
      );
      const res = await api.call('get', `/f/${form.id}`, null).buffer(true).parse(asText);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);

      const parsed = await parse(page, res.body);
      // One JSON block, and the page's element after it: nothing ended the block early or kept it open.
      expect(parsed.body).toEqual(['SCRIPT#hosted-form-data', 'MAIN#hosted-form']);
      expect(parsed.blocks.map((block) => block.id)).toEqual(['hosted-form-data']);
      const embedded = JSON.parse(parsed.blocks[0]!.text) as {
        id: string;
        name: string;
        steps: Array<{ title: string; description?: string }>;
      };
      expect(embedded.id).toBe(form.id);
      expect(embedded.name).toBe(name);
      expect(embedded.steps[0]).toMatchObject({ title, description: `About ${name}` });
      expect(embedded.steps.map((step) => step.title)).toEqual(form.steps.map((step) => step.title));
      expect(parsed.title).toBe(name);
      expect(parsed.heading).toBe(name);

      // The page's script reads the same block and shows the strings as text, not markup.
      await page.goto(`${api.baseUrl}/f/${form.id}`);
      await page.locator('#step-title').waitFor();
      expect(await page.textContent('#step-title')).toBe(title);
      expect(await page.textContent('main h1')).toBe(name);
      expect(await page.textContent('main .description')).toBe(`About ${name}`);
      expect(await page.locator('#injected').count()).toBe(0);
    },
  );
});
