/**
 * A hosted form's page in headless Chromium, on both stores (the HTTP suite runs on SQLite and PostgreSQL): the demo
 * funnel, whose logic skips the budget step for a respondent without a budget, walked with a validation error
 * corrected, a reload mid-way that resumes, the form's proof of work solved in the page's worker, and the lead then
 * found scored and its webhook delivered, with axe-core finding no serious or critical violation on any step and on
 * the thanks; a send whose answer was lost replayed, not repeated; a form that is not hosted is a 404. What the page
 * does on its own (keyboard, saved progress, the embed) is in hosted-page-behaviour.test.ts, on SQLite only.
 */
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
    await expect.poll(() => page.textContent('#error-email')).toBe('This answer is not an email address.');
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
    expect(await page.textContent('#next')).toBe('Send');
    await expectAccessible(page);
    await page.click('#next');
    await expect.poll(() => page.textContent('#error-gdpr')).toBe('This answer is required.');
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

  it('when a form is not hosted, then its URL is a 404 page in the browser too', async () => {
    const form = await createForm(api, demoForm({ name: 'Not hosted' }));
    const page = await openPage();
    const response = await page.goto(`${api.baseUrl}/f/${form.id}`);
    expect(response?.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Not found');
  });
});
