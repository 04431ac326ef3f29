/**
 * A hosted form's page in headless Chromium, on both stores (the HTTP suite runs on SQLite and PostgreSQL): the demo
 * funnel, whose logic skips the budget step for a respondent without a budget, walked with a validation error
 * corrected, a reload mid-way that resumes, the form's proof of work solved in the page's worker, and the lead then
 * found scored and its webhook delivered, with axe-core finding no serious or critical violation on any step and on
 * the thanks; a send whose answer was lost replayed with its Idempotency-Key, not repeated, the completing one too
 * (counted in the requests the page sends, not only in the stored rows); a form that is not hosted is a 404. What the
 * page does on its own (keyboard, saved progress, the embed) is in hosted-page-behaviour.test.ts, on SQLite only.
 */
import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { WebhookRequest } from '../../src/domain/integrations/delivery-transport.js';
import { createDeliveryWorker } from '../../src/domain/integrations/worker.js';
import { createForm, createIntegration, logsOf } from '../support/factories.js';
import { policyRefusals } from '../support/hosted-browser.js';
import { useHostedBrowser } from './hosted-browser-support.js';
import { demoForm } from './submissions-support.js';

const { api, openPage, heading, fillContact, expectAccessible } = useHostedBrowser();

describe('a hosted form in a browser', () => {
  it('when a respondent corrects an error, reloads mid-way and skips the budget, then the lead arrives scored and delivered', async () => {
    const form = await createForm(
      api,
      demoForm({
        name: 'Hosted demo',
        hosting: { enabled: true },
        appearance: { accent_color: '#0f766e', font: 'serif' },
        spam_protection: { honeypot_field: 'website', proof_of_work: true, min_completion_seconds: 1 },
      }),
    );
    const integration = await createIntegration(api, { events: ['submission.completed'], form_id: form.id });
    const page = await openPage();
    const refusals = policyRefusals(page);
    await page.goto(`${api.baseUrl}/f/${form.id}?utm_source=newsletter`);
    await heading(page, 'Who are you?');
    expect(await page.textContent('.progress p')).toBe('Step 1 of 4');
    expect(await page.evaluate("getComputedStyle(document.querySelector('#next')).backgroundColor")).toBe('rgb(15, 118, 110)');
    expect(await page.evaluate('getComputedStyle(document.body).fontFamily')).toMatch(/Georgia/);
    // Each field's live error region is there before it has a message (a region added or shown with its text may go
    // unannounced), taking no room while empty.
    expect(await page.evaluate("getComputedStyle(document.querySelector('#error-email')).display")).toBe('block');
    expect(await page.evaluate("document.querySelector('#error-email').getBoundingClientRect().height")).toBe(0);
    await expectAccessible(page);

    await page.fill('[name="full_name"]', 'Ana Ruiz');
    await page.fill('[name="email"]', 'ana@');
    await page.click('#next');
    await expect.poll(() => page.textContent('#error-email')).toBe('Enter an email address, such as name@example.com.');
    expect(await page.getAttribute('[name="email"]', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#error-email', 'aria-live')).toBe('polite');
    await expectAccessible(page);
    await page.fill('[name="email"]', 'ana@northwind.example');
    await page.waitForTimeout(1100); // the form's minimum completion time
    await page.click('#next');
    await heading(page, 'About your company');

    await page.reload();
    await heading(page, 'About your company');
    expect(await page.textContent('.progress p')).toBe('Step 2 of 4');
    // A required choice group says so in words, not only with the "*" hidden from assistive technology.
    expect(await page.getByRole('group', { name: 'Company size (required)' }).count()).toBe(1);
    await expectAccessible(page);
    await page.check('[name="company_size"][value="201_plus"]');
    await page.check('[name="has_budget"][value="false"]');
    await page.click('#next');
    await heading(page, 'Anything else?');
    expect(await page.textContent('.progress p')).toBe('Step 3 of 3');
    expect(await page.textContent('#next')).toBe('Submit');
    await expectAccessible(page);
    await page.click('#next');
    await expect.poll(() => page.textContent('#error-gdpr')).toBe('Please accept this to continue.');
    await page.check('[name="gdpr"]');
    await page.click('#next');
    await heading(page, 'Thank you!');
    await expectAccessible(page);
    expect(refusals).toEqual([]);
    expect(await page.evaluate(`localStorage.getItem('form-funnel:${form.id}')`)).toBeNull();

    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        status: 'completed',
        score: 25,
        answers: { full_name: 'Ana Ruiz', email: 'ana@northwind.example', company_size: '201_plus', has_budget: false, gdpr: true },
        hidden: { utm_source: 'newsletter' },
        visited_steps: ['contact', 'company', 'finish'],
      }),
    ]);

    const sent: WebhookRequest[] = [];
    await createDeliveryWorker(api.services, {
      transport: async (request) => {
        sent.push(request);
        return { status: 204 };
      },
      random: () => 0.5,
    }).runDue();
    expect(await logsOf(api, integration.id)).toEqual([
      expect.objectContaining({ event_type: 'submission.completed', status: 'succeeded' }),
    ]);
    expect(JSON.parse(String(sent[0]!.body)).data.object).toMatchObject({ id: listed.body.data[0].id, score: 25 });
  });

  it('when the answer to the first send is lost and the respondent reloads and retries, then it is replayed: one submission, not two', async () => {
    const form = await createForm(
      api,
      demoForm({ name: 'Lost answer', hosting: { enabled: true }, spam_protection: { honeypot_field: 'website', proof_of_work: true } }),
    );
    const page = await openPage();
    let lost = 0;
    await page.route('**/public/submissions', async (route) => {
      if (route.request().method() !== 'POST' || lost > 0) return route.continue();
      lost += 1;
      // The server answers; the answer never reaches the page.
      expect((await route.fetch()).status()).toBe(201);
      await route.abort('connectionreset');
    });
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await fillContact(page, 'Zoe Hart', 'zoe@hart.example');
    // The failure is told (after the proof of work and the send, which may take seconds on a loaded machine).
    await page.locator('#status').filter({ hasText: /\S/ }).waitFor();
    expect(await page.isEnabled('#next')).toBe(true);
    // The send and its key are in the saved progress, not only in the page: the retry works after a reload too.
    await page.reload();
    await heading(page, 'Who are you?');
    expect(await page.inputValue('[name="email"]')).toBe('zoe@hart.example');
    await page.click('#next');
    await heading(page, 'About your company');
    expect(lost).toBe(1);
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ status: 'partial', answers: { full_name: 'Zoe Hart', email: 'zoe@hart.example' } }),
    ]);
  });

  /**
   * Every send of answers the page makes (not the copies a route fetches on its behalf), with its Idempotency-Key, the
   * status it asks for, and whether the server's answer that reached the page was a replay.
   */
  function recordSends(page: Page) {
    const sends: Array<{ method: string; key: string | undefined; status: unknown; replayed?: string }> = [];
    const byRequest = new Map<Request, (typeof sends)[number]>();
    page.on('request', (request) => {
      if (!/\/v1\/public\/submissions(\/|$)/.test(new URL(request.url()).pathname)) return;
      const send = { method: request.method(), key: request.headers()['idempotency-key'], status: request.postDataJSON()?.status };
      sends.push(send);
      byRequest.set(request, send);
    });
    page.on('response', (response) => {
      const send = byRequest.get(response.request());
      if (send) send.replayed = response.headers()['idempotent-replayed'];
    });
    return sends;
  }

  /** Loses the server's answer to the first `method` send asking for `status: completed`: the server acts, the page never hears. */
  async function loseCompletingAnswer(page: Page, path: string, method: 'POST' | 'PATCH') {
    const lost: string[] = [];
    await page.route(path, async (route) => {
      const request = route.request();
      if (request.method() !== method || request.postDataJSON()?.status !== 'completed' || lost.length > 0) return route.continue();
      lost.push(request.headers()['idempotency-key'] ?? '');
      expect((await route.fetch()).status()).toBe(method === 'POST' ? 201 : 200);
      await route.abort('connectionreset');
    });
    return lost;
  }

  /** Waits until the page tells a failed send: a message in place of "Sending…", the button enabled again. */
  async function failureTold(page: Page) {
    await expect
      .poll(async () => [(await page.textContent('#status'))?.trim() !== 'Sending…', await page.isEnabled('#next')])
      .toEqual([true, true]);
    expect(await page.textContent('#status')).toMatch(/\S/);
  }

  it('when the answer to the completing send is lost and the respondent sends again, then that send is replayed with its key: one submission, completed once', async () => {
    const form = await createForm(api, demoForm({ name: 'Lost completion', hosting: { enabled: true } }));
    const page = await openPage();
    const sends = recordSends(page);
    const lost = await loseCompletingAnswer(page, '**/public/submissions/*', 'PATCH');
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await fillContact(page, 'Lou Reyes', 'lou@reyes.example');
    await heading(page, 'About your company');
    await page.check('[name="company_size"][value="1_10"]');
    await page.check('[name="has_budget"][value="false"]');
    await page.click('#next');
    await heading(page, 'Anything else?');
    await page.check('[name="gdpr"]');
    await page.click('#next');
    // The failure is told (in place of "Sending…"), and the respondent sends again.
    await failureTold(page);
    expect(lost).toHaveLength(1);
    expect(await page.isEnabled('#next')).toBe(true);
    await page.click('#next');
    await heading(page, 'Thank you!');

    // One create, one partial update, and the completing update twice with one key, the second answered as a replay.
    const [created, updated, completing, again, ...more] = sends;
    expect(more).toEqual([]);
    expect(created).toMatchObject({ method: 'POST', status: 'partial', replayed: undefined });
    expect(updated).toMatchObject({ method: 'PATCH', status: 'partial', replayed: undefined });
    expect(completing).toMatchObject({ method: 'PATCH', status: 'completed', key: lost[0] });
    expect(again).toEqual({ method: 'PATCH', status: 'completed', key: lost[0], replayed: 'true' });
    expect(new Set(sends.map((send) => send.key)).size).toBe(3);
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ status: 'completed', answers: expect.objectContaining({ email: 'lou@reyes.example', gdpr: true }) }),
    ]);
  });

  it('when the answer to a create that completes the form is lost and the respondent reloads and sends again, then the create is replayed with its key: one submission', async () => {
    const form = await createForm(api, {
      name: 'Lost one-step',
      hosting: { enabled: true },
      steps: [{ id: 'hello', title: 'Say hello', fields: [{ type: 'email', ref: 'email', label: 'Work email', required: true }] }],
    });
    const page = await openPage();
    const sends = recordSends(page);
    const lost = await loseCompletingAnswer(page, '**/public/submissions', 'POST');
    await page.goto(`${api.baseUrl}/f/${form.id}`);
    await heading(page, 'Say hello');
    await page.fill('[name="email"]', 'ida@berg.example');
    await page.click('#next');
    await failureTold(page);
    expect(lost).toHaveLength(1);
    await page.reload();
    await heading(page, 'Say hello');
    expect(await page.inputValue('[name="email"]')).toBe('ida@berg.example');
    await page.click('#next');
    await heading(page, 'Thank you!');

    expect(sends).toEqual([
      { method: 'POST', status: 'completed', key: lost[0] },
      { method: 'POST', status: 'completed', key: lost[0], replayed: 'true' },
    ]);
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data).toEqual([expect.objectContaining({ status: 'completed', answers: { email: 'ida@berg.example' } })]);
  });

  it('when a form is not hosted, then its URL is a 404 page in the browser too', async () => {
    const form = await createForm(api, demoForm({ name: 'Not hosted' }));
    const page = await openPage();
    const response = await page.goto(`${api.baseUrl}/f/${form.id}`);
    expect(response?.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Not found');
  });
});
