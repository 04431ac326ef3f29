/**
 * The guide's page ("Collect submissions from your website", openapi/guides/respondents.md) in headless Chromium,
 * as a partner would serve it: from an allowed origin it fetches the form, solves the proof-of-work challenge,
 * submits the first step, is reloaded, resumes with its resume token and completes; the workspace then finds the
 * lead scored and its webhook delivered. From another origin, CORS refuses it. Live and test keys; the HTTP suite
 * runs on both stores. One browser for the file.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { WebhookRequest } from '../../src/domain/integrations/delivery-transport.js';
import { createDeliveryWorker } from '../../src/domain/integrations/worker.js';
import { createForm, createIntegration, logsOf } from '../support/factories.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';
import { useCustomerPages } from './hosted-browser-support.js';
import { testWebhookUrls } from './integrations-support.js';
import { demoForm } from './submissions-support.js';

const api = useWatchedApi(() => ({ rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));

/** The guide's page, with its three constants set as a partner would. */
function guidePage(apiBase: string, key: string, formId: string): string {
  const guide = readFileSync(new URL('../../openapi/guides/respondents.md', import.meta.url), 'utf8');
  const page = /^```html\n([\s\S]*?)^```$/m.exec(guide)![1]!;
  return page
    .replace(/const API = '[^']*';/, `const API = '${apiBase}';`)
    .replace(/const KEY = '[^']*';/, `const KEY = '${key}';`)
    .replace(/const FORM_ID = '[^']*';/, `const FORM_ID = '${formId}';`);
}

/** Static pages over HTTPS, reached as https://localhost:port (the allowed origin) or https://127.0.0.1:port (not). */
const { pages, port, openPage } = useCustomerPages();

const stepShows = (page: Page, ref: string) => page.locator(`[name="${ref}"]`).first().waitFor({ timeout: 30_000 });

describe('the guide’s page in a browser', () => {
  for (const environment of ['live', 'test'] as const) {
    it(`when served from an allowed origin (${environment}), then it submits, resumes after a reload and completes a scored, delivered lead`, async () => {
      const admin = environment === 'live' ? api.workspace.live_admin_key : api.workspace.test_admin_key;
      const form = await createForm(
        api,
        demoForm({
          name: `Website ${environment}`,
          spam_protection: { honeypot_field: 'website', proof_of_work: true, min_completion_seconds: 1 },
        }),
      );
      const integration = await createIntegration(api, { events: ['submission.completed'], form_id: form.id }, admin);
      const key = await createPublishableKey(api, { environment, allowed_origins: [`https://localhost:${port()}`] });
      pages.set(`/${environment}`, guidePage(`${api.baseUrl}/v1`, key.value, form.id));

      const page = await openPage();
      await page.goto(`https://localhost:${port()}/${environment}`);
      await page.getByRole('heading', { name: form.name }).waitFor();
      await page.fill('[name="full_name"]', 'Ana Ruiz');
      await page.fill('[name="email"]', 'ana@northwind.example');
      await page.waitForTimeout(1100); // the form's minimum completion time
      await page.click('#next');
      await stepShows(page, 'company_size');
      expect(await page.textContent('#status')).toBe('');

      await page.reload();
      await stepShows(page, 'company_size');
      await page.selectOption('[name="company_size"]', '201_plus');
      await page.selectOption('[name="has_budget"]', 'true');
      await page.click('#next');
      await stepShows(page, 'budget_usd');
      await page.fill('[name="budget_usd"]', '80000');
      await page.click('#next');
      await stepShows(page, 'gdpr');
      await page.check('[name="gdpr"]');
      await page.click('#next');
      await page.getByText('Thank you!').waitFor();
      await page.context().close();

      const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`, admin);
      expect(listed.body.data).toEqual([
        expect.objectContaining({
          status: 'completed',
          test: environment === 'test',
          score: 65,
          grade: 'A',
          answers: expect.objectContaining({ email: 'ana@northwind.example', budget_usd: 80000, gdpr: true }),
        }),
      ]);
      expect(listed.body.data[0].answers).not.toHaveProperty('website');

      const sent: WebhookRequest[] = [];
      await createDeliveryWorker(api.services, {
        transport: async (request) => {
          sent.push(request);
          return { status: 204 };
        },
        random: () => 0.5,
      }).runDue();
      const logs = await logsOf(api, integration.id, admin);
      expect(logs).toEqual([expect.objectContaining({ event_type: 'submission.completed', status: 'succeeded' })]);
      if (environment === 'live') {
        expect(JSON.parse(String(sent[0]!.body)).data.object).toMatchObject({ id: listed.body.data[0].id, score: 65, grade: 'A' });
      }
    });
  }

  it('when the same page is served from another origin, then CORS refuses it and nothing is stored', async () => {
    const form = await createForm(api, demoForm({ name: 'Website elsewhere' }));
    const key = await createPublishableKey(api, { environment: 'live', allowed_origins: [`https://localhost:${port()}`] });
    pages.set('/elsewhere', guidePage(`${api.baseUrl}/v1`, key.value, form.id));
    const page = await openPage();
    await page.goto(`https://127.0.0.1:${port()}/elsewhere`);
    await page.getByText('Failed to fetch').waitFor();
    expect(await page.textContent('#title')).toBe('Loading…');
    const post = await page.evaluate(
      async ([url, value, formId]) =>
        fetch(url!, {
          method: 'POST',
          headers: { Authorization: `Bearer ${value}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ form_id: formId, answers: { full_name: 'Eve' }, status: 'partial' }),
        }).then(
          () => 'read',
          (error: Error) => error.name,
        ),
      [`${api.baseUrl}/v1/public/submissions`, key.value, form.id],
    );
    expect(post).toBe('TypeError');
    await page.context().close();
    expect((await api.call('get', `/v1/submissions?form_id=${form.id}`)).body.data).toEqual([]);
  });
});
