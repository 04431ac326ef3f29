/**
 * The dashboard does every action the seed lists for it, in Chromium, on both stores (api and api-postgres): the owner
 * builds a two-step form with a logic rule and scoring in the builder, publishes it with hosting on, two respondents
 * submit it through the hosted page, both leads are found graded in Leads, the funnel's figures equal GET
 * /v1/analytics, the leads are exported as CSV, a changed score is published and the form rescored, a webhook
 * delivers to a local receiver, and a colleague invited as a viewer finds no control to change anything. Every
 * request the owner's dashboard made is one of the contract's operations, with the query parameters it declares.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsTransport } from '../../src/adapters/webhook-transport.js';
import { createDeliveryWorker } from '../../src/domain/integrations/worker.js';
import { type RescoreWorker, startRescoreWorker } from '../../src/domain/rescore-jobs/worker.js';
import { type SignedIn, screenHeading, useDashboard } from '../support/dashboard-browser.js';
import { checkAgainstContract } from '../support/documented-requests.js';
import { asText } from '../support/http-checks.js';
import { startReceiver, testWebhookUrls } from './integrations-support.js';

// Loopback endpoints are allowed, as the operator's ALLOW_PRIVATE_WEBHOOK_URLS does for local testing.
const dashboard = useDashboard(() => ({ webhookUrls: testWebhookUrls(true) }));

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let rescorer: RescoreWorker;
beforeAll(async () => {
  receiver = await startReceiver([200]);
  // The server process runs queued rescore jobs; this file's API is the app alone, so the test runs the worker.
  rescorer = startRescoreWorker(dashboard.api.services, { pollIntervalMs: 100 });
});
afterAll(async () => {
  await rescorer?.stop();
  await receiver?.close();
});

const get = async (path: string) => {
  const res = await dashboard.api.call('get', path);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

const openScreen = async (page: Page, link: string, heading: string | RegExp) => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: link }).click();
  await screenHeading(page, heading);
};

/** The body rows of the table whose caption is `caption`, as the text of each cell. */
async function tableRows(page: Page, caption: string): Promise<string[][]> {
  await page.getByRole('table', { name: caption }).waitFor();
  return (await page.evaluate(`(() => {
    const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent.trim() === ${JSON.stringify(caption)});
    if (!table || table.closest('[aria-busy="true"]')) return [];
    return [...table.tBodies[0].rows].map((row) => [...row.cells].map((cell) => cell.textContent.trim()));
  })()`)) as string[][];
}

/** A respondent fills the hosted form in a page of their own: the email, the company size and, if asked, a budget. */
async function respond(owner: SignedIn, formId: string, email: string, size: 'Small' | 'Large', budget?: string): Promise<void> {
  const page = await owner.context.newPage();
  await page.goto(`${dashboard.site()}/f/${formId}`);
  await page.getByRole('heading', { name: 'Contact' }).waitFor();
  await page.getByLabel(/Work email/).fill(email);
  await page.getByRole('radio', { name: size }).check();
  await page.click('#next');
  if (budget !== undefined) {
    await page.getByRole('heading', { name: 'Budget' }).waitFor();
    await page.getByRole('textbox', { name: 'Budget' }).fill(budget);
    await page.click('#next');
  }
  await page.getByRole('heading', { name: 'Thank you!' }).waitFor();
  await page.close();
}

describe('the dashboard, as the seed lists its actions', () => {
  let owner: SignedIn;
  let formId: string;

  it('when the owner builds, publishes and hosts a form, then two hosted submissions are found graded in Leads', async () => {
    owner = await dashboard.signIn('owner@acme.test', { path: 'forms' });
    const { page } = owner;
    await screenHeading(page, 'Forms');
    await page.getByRole('link', { name: 'New form' }).click();
    await screenHeading(page, 'New form');
    await page.getByLabel('Name', { exact: true }).fill('Walk funnel');

    // Step 1: a required work email, and a required company size whose options score 0 and 50.
    const first = page.getByRole('region', { name: /^Step 1:/ });
    await first.getByLabel('Title', { exact: true }).fill('Contact');
    await first.getByRole('button', { name: 'Add field to Step 1' }).click();
    const email = first.getByRole('group', { name: /^Field 1/ });
    await email.getByLabel('Question', { exact: true }).fill('Work email');
    await email.getByLabel('Type', { exact: true }).selectOption({ label: 'Email' });
    await email.getByLabel('Required', { exact: true }).check();
    await first.getByRole('button', { name: 'Add field to Step 1' }).click();
    const size = first.getByRole('group', { name: /^Field 2/ });
    await size.getByLabel('Question', { exact: true }).fill('Company size');
    await size.getByLabel('Type', { exact: true }).selectOption({ label: 'Single choice' });
    await size.getByLabel('Required', { exact: true }).check();
    await size.getByRole('group', { name: 'Option 1', exact: true }).getByLabel('Label', { exact: true }).fill('Small');
    await size.getByRole('group', { name: 'Option 1', exact: true }).getByLabel('Score', { exact: true }).fill('0');
    await size.getByRole('button', { name: 'Add option' }).click();
    await size.getByRole('group', { name: 'Option 2', exact: true }).getByLabel('Label', { exact: true }).fill('Large');
    await size.getByRole('group', { name: 'Option 2', exact: true }).getByLabel('Score', { exact: true }).fill('50');

    // Step 2: the budget, which the logic skips for small companies.
    await page.getByRole('button', { name: 'Add step' }).click();
    const second = page.getByRole('region', { name: /^Step 2:/ });
    await second.getByLabel('Title', { exact: true }).fill('Budget');
    await second.getByRole('button', { name: 'Add field to Step 2' }).click();
    await second
      .getByRole('group', { name: /^Field 1/ })
      .getByLabel('Question', { exact: true })
      .fill('Budget');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const rule = page.getByRole('group', { name: 'Rule 1', exact: true });
    await rule.getByLabel('After step', { exact: true }).selectOption({ label: 'Step 1: Contact' });
    await rule.getByLabel('Field', { exact: true }).selectOption({ label: 'Company size (company_size)' });
    await rule.getByLabel('Operator', { exact: true }).selectOption({ label: 'is' });
    await rule.getByLabel('Option', { exact: true }).selectOption({ label: 'Small' });
    await rule.getByLabel('Then', { exact: true }).selectOption({ label: 'End the form' });
    for (const [label, minimum] of [
      ['hot', '50'],
      ['cold', '0'],
    ] as const) {
      await page.getByRole('button', { name: 'Add grade' }).click();
      const grade = page.getByRole('group', { name: /^Grade \d$/ }).last();
      await grade.getByLabel('Label', { exact: true }).fill(label);
      await grade.getByLabel('Minimum score', { exact: true }).fill(minimum);
    }
    await page.getByLabel("Host the form's page", { exact: true }).check();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Published version 1.' }).waitFor();
    formId = /\/dashboard\/forms\/(form_\w+)$/.exec(page.url())?.[1] ?? '';
    const form = await get(`/v1/forms/${formId}`);
    expect(form).toMatchObject({ name: 'Walk funnel', version: 1, status: 'published', hosting: { enabled: true } });
    expect(form.logic).toHaveLength(1);
    await page.getByRole('link', { name: form.hosting.url }).waitFor();

    await respond(owner, formId, 'big@corp.example', 'Large', '90000');
    await respond(owner, formId, 'tiny@shop.example', 'Small');

    await openScreen(page, 'Leads', 'Leads');
    await page.getByLabel('Form', { exact: true }).selectOption({ label: 'Walk funnel' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const leadRows = async () =>
      (await tableRows(page, 'Leads matching the filters')).map(([lead, , status, score, grade]) => [lead, status, score, grade]).sort();
    await expect.poll(leadRows).toEqual([
      ['big@corp.example', 'completed', '50', 'hot'],
      ['tiny@shop.example', 'completed', '0', 'cold'],
    ]);
    const leads = (await get(`/v1/submissions?form_id=${formId}`)).data as Array<{ grade: string; visited_steps: string[] }>;
    expect(leads.map((lead) => [lead.grade, lead.visited_steps.length]).sort()).toEqual([
      ['cold', 1],
      ['hot', 2],
    ]);
  });

  it('when the owner looks at Analytics and exports, then the funnel is GET /v1/analytics and the CSV the API’s export', async () => {
    const { page } = owner;
    await openScreen(page, 'Analytics', 'Analytics');
    await page.getByLabel('Form', { exact: true }).selectOption({ label: 'Walk funnel' });
    const figures = await get(`/v1/analytics?form_id=${formId}`);
    expect(figures.submissions).toEqual({ started: 2, completed: 2, completion_rate: 1 });
    await page
      .getByRole('img', { name: /funnel/i })
      .first()
      .waitFor();
    const count = (value: number) => new Intl.NumberFormat('en-US').format(value);
    await expect
      .poll(() => tableRows(page, 'Funnel figures'))
      .toEqual([
        ['Started', count(figures.submissions.started), '—', '—'],
        ...figures.steps.map((step: { title: string; reached: number; dropped_off: number; drop_off_rate: number }) => [
          step.title,
          count(step.reached),
          count(step.dropped_off),
          new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 }).format(step.drop_off_rate),
        ]),
        ['Completed', count(figures.submissions.completed), '—', '—'],
      ]);
    expect(await tableRows(page, 'Completed leads by grade')).toEqual(
      figures.score.grades.map((grade: { label: string | null; count: number }) => [grade.label ?? 'No grade', count(grade.count)]),
    );

    await openScreen(page, 'Leads', 'Leads');
    await page.getByLabel('Form', { exact: true }).selectOption({ label: 'Walk funnel' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const file = await readFile(await download.path(), 'utf8');
    const fromApi = await dashboard.api.call('get', `/v1/submissions/export?form_id=${formId}&format=csv`).buffer(true).parse(asText);
    expect(file).toBe(fromApi.body);
    expect(file.split('\r\n').filter(Boolean)).toHaveLength(3);
  });

  it('when a score changes and the form is rescored, then the leads take the new grades', async () => {
    const { page } = owner;
    await openScreen(page, 'Forms', 'Forms');
    await page.getByRole('link', { name: 'Walk funnel' }).click();
    await screenHeading(page, 'Walk funnel');
    const size = page.getByRole('region', { name: /^Step 1:/ }).getByRole('group', { name: /^Field 2/ });
    await size.getByRole('group', { name: 'Option 1', exact: true }).getByLabel('Score', { exact: true }).fill('60');
    await page.getByRole('button', { name: 'Publish changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Published version 2.' }).waitFor();

    await openScreen(page, 'Leads', 'Leads');
    await page.getByLabel('Form', { exact: true }).selectOption({ label: 'Walk funnel' });
    await page.getByRole('button', { name: 'Rescore every lead of this form' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Rescore finished/ })
      .waitFor({ timeout: 15_000 });
    const leads = (await get(`/v1/submissions?form_id=${formId}`)).data as Array<{ score: number; grade: string }>;
    expect(leads.map((lead) => [lead.score, lead.grade]).sort()).toEqual([
      [50, 'hot'],
      [60, 'hot'],
    ]);
  });

  it('when the owner connects a webhook, then its test event reaches the local receiver and shows in the delivery log', async () => {
    const { page } = owner;
    await openScreen(page, 'Integrations', 'Integrations');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Create integration' }).click();
    await page.getByRole('region', { name: 'Signing secret' }).getByRole('button', { name: 'Done' }).click();
    await page.getByRole('link', { name: receiver.url }).click();
    await screenHeading(page, /^Integration /);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('status').filter({ hasText: 'Queued integration.ping' }).waitFor();
    const delivered = await createDeliveryWorker(dashboard.api.services, {
      transport: httpsTransport({ extraCa: receiver.cert }),
    }).runDue();
    expect(delivered).toBe(1);
    expect(JSON.parse(receiver.received.at(-1)!.body)).toMatchObject({ type: 'integration.ping' });
    await page.getByRole('button', { name: 'Refresh the log' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'integration.ping' }).textContent()).toContain('Succeeded');
  });

  it('when the owner invites a viewer from Team, then the viewer finds the form with no control to change it', async () => {
    const { page } = owner;
    await openScreen(page, 'Team', 'Team');
    await page.getByLabel('Email', { exact: true }).fill('vera@acme.test');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('row').filter({ hasText: 'vera@acme.test' }).first().waitFor();
    const due = await dashboard.api.store.people.dueMail('2100-01-01T00:00:00.000Z', 100);
    const link = /https:\/\/\S+/.exec(due.filter((mail) => mail.to === 'vera@acme.test').at(-1)?.text ?? '')?.[0] ?? '';
    const accepted = await request(dashboard.api.baseUrl)
      .post('/invites/accept')
      .trustLocalhost()
      .ca(dashboard.api.certificate)
      .redirects(0)
      .set('Origin', dashboard.api.baseUrl)
      .type('form')
      .send({ token: new URL(link).searchParams.get('token') });
    expect(accepted.status).toBe(303);

    const viewer = await dashboard.signIn('vera@acme.test', { path: `forms/${formId}` });
    await screenHeading(viewer.page, 'Walk funnel');
    expect(await viewer.page.getByRole('button', { name: /Publish|Add step|Add field|Add rule/ }).count()).toBe(0);
    // On a phone the screens are behind Menu, which closes once one is chosen.
    await viewer.page.setViewportSize({ width: 360, height: 740 });
    const menu = viewer.page.getByRole('button', { name: 'Menu' });
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await openScreen(viewer.page, 'Leads', 'Leads');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    await viewer.page.getByRole('table', { name: 'Leads matching the filters' }).waitFor();
    expect(await viewer.page.getByRole('button', { name: /Rescore|Erase|Delete/ }).count()).toBe(0);

    // Every request the owner's dashboard made is a documented operation, and the seed's actions were among them.
    const verdicts = checkAgainstContract(owner.requests);
    expect(verdicts.filter((verdict) => verdict.problem)).toEqual([]);
    const used = new Set(verdicts.map((verdict) => verdict.operationId));
    for (const operation of ['createForm', 'updateForm', 'listSubmissions', 'getAnalytics', 'exportSubmissions', 'rescoreForm'])
      expect(used).toContain(operation);
    for (const operation of ['createIntegration', 'dispatchIntegration', 'listIntegrationLogs', 'createInvite'])
      expect(used).toContain(operation);
    // The check itself refuses what the contract does not have.
    expect(checkAgainstContract([{ method: 'GET', path: '/v1/internal/stats' }])[0]?.problem).toBe('no operation of the contract');
    expect(checkAgainstContract([{ method: 'GET', path: '/v1/forms?secret=1' }])[0]?.problem).toMatch(/undeclared/);
  });

  it('when the owner switches to test mode, then the banner says so and Leads shows the test environment’s only', async () => {
    const { page } = owner;
    await openScreen(page, 'Leads', 'Leads');
    const shown = async () =>
      (await page.getByRole('table', { name: 'Leads matching the filters' }).count()) === 0
        ? 0
        : (await tableRows(page, 'Leads matching the filters')).length;
    await expect.poll(shown).toBe(2);
    await page.getByRole('button', { name: 'Test mode' }).click();
    await page.getByRole('status').filter({ hasText: 'Test mode: you are looking at test data.' }).waitFor();
    await screenHeading(page, 'Leads');
    expect(await page.getByRole('button', { name: 'Test mode' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(shown).toBe(0);
    await page.getByRole('button', { name: 'Test mode' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Test mode' }).getAttribute('aria-pressed')).toBe('false');
    await expect.poll(shown).toBe(2);

    // One grant per tab: each new authorization (test mode, back, a reload refreshes instead) revoked the one before.
    await page.reload();
    await screenHeading(page, 'Leads');
    const live = await dashboard.api.rows(
      "SELECT g.id FROM oauth_grants g JOIN members m ON m.id = g.member_id WHERE g.client_id = 'form-funnel-dashboard' AND " +
        "g.revoked_at IS NULL AND m.email = 'owner@acme.test'",
    );
    expect(live).toHaveLength(1);
  });

  it('when the API answers 429 or 503, then the screen says when to retry, or that the service is briefly unavailable', async () => {
    const { page } = owner;
    const answer = (status: number, details: Record<string, unknown>) => ({
      status,
      contentType: 'application/problem+json',
      headers: (status === 429 ? { 'Retry-After': '30' } : {}) as Record<string, string>,
      body: JSON.stringify({
        type: status === 429 ? 'rate_limit_error' : 'server_error',
        code: status === 429 ? 'rate_limited' : 'service_unavailable',
        status,
        message: status === 429 ? 'Too many requests for this workspace.' : 'The service is unavailable.',
        request_id: 'req_0aB1cD2eF3gH4iJ5kL6mN7oP',
        details,
      }),
    });
    await page.route('**/v1/usage', (route) => route.fulfill(answer(429, { retry_after_seconds: 30 })));
    await openScreen(page, 'Usage', 'Usage');
    await page.getByRole('alert').filter({ hasText: 'Try again in 30 seconds.' }).waitFor();
    await page.unroute('**/v1/usage');
    await page.route('**/v1/usage', (route) => route.fulfill(answer(503, {})));
    await page.getByRole('alert').getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('alert').filter({ hasText: 'briefly unavailable' }).waitFor({ timeout: 15_000 });
    await page.unroute('**/v1/usage');
  });
});
