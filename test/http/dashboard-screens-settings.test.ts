/**
 * The dashboard's settings screens in Chromium, as an admin uses them: an integration delivering to a local HTTPS
 * receiver (its secret shown once and copied, a test event, a sample and its replay seen arriving and in the delivery
 * log, the secret rotated), the team (an invitation sent, sent again and revoked; the only admin's removal refused by
 * the API), keys (an API key created, its secret shown once, and revoked; a publishable key created and its origins
 * edited), usage and the audit log; then a viewer, who sees no edit controls and an "only admins" note where admin
 * screens were. Each screen state is checked with axe at 1440 and 360 px.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsTransport } from '../../src/adapters/webhook-transport.js';
import { verifyWebhookSignature } from '../../src/client/webhooks.js';
import { createDeliveryWorker } from '../../src/domain/integrations/worker.js';
import { type SignedIn, screenHeading, useDashboard, writesOf } from '../support/dashboard-browser.js';
import { checkAgainstContract } from '../support/documented-requests.js';
import { startReceiver, testWebhookUrls } from './integrations-support.js';

// Loopback endpoints are allowed, as the operator's ALLOW_PRIVATE_WEBHOOK_URLS does for local testing.
const dashboard = useDashboard(() => ({ webhookUrls: testWebhookUrls(true) }));

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let admin: SignedIn;
beforeAll(async () => {
  receiver = await startReceiver([200]);
});
afterAll(async () => {
  await receiver?.close();
});

/** Delivers what is due, as the service's delivery worker does, trusting the receiver's certificate. */
const deliverDue = () => createDeliveryWorker(dashboard.api.services, { transport: httpsTransport({ extraCa: receiver.cert }) }).runDue();

const get = async (path: string) => {
  const res = await dashboard.api.call('get', path);
  expect(res.status).toBe(200);
  return res.body;
};

/** axe finds nothing at 1440 px and at 360 px, where the page does not scroll sideways either. */
async function expectAccessibleAtBothWidths(page: Page): Promise<void> {
  expect(await dashboard.axeViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 360, height: 800 });
  expect(await dashboard.axeViolations(page)).toEqual([]);
  expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** Follows a navigation link (behind the Menu button at 360 px) and waits for the screen's heading. */
const openScreen = async (page: Page, link: string, heading: string) => {
  const target = page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: link });
  if (!(await target.isVisible())) await page.getByRole('button', { name: 'Menu' }).click();
  await target.click();
  await screenHeading(page, heading);
};

describe('the settings screens, as an admin', () => {
  let integrationId: string;

  it('when an admin creates an integration, then its secret is shown once with a copy button and signs the test event', async () => {
    admin = await dashboard.signIn('owner@acme.test', { path: 'integrations' });
    const { page, context } = admin;
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await screenHeading(page, 'Integrations');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('CRM');
    await page.getByRole('button', { name: 'Create integration' }).click();

    const shown = page.getByRole('region', { name: 'Signing secret' });
    const secret = (await shown.getByText(/^whsec_/).textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[0-9A-Za-z]{32,64}$/);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => shown.getByRole('status').textContent()).toContain('Copied.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    const [stored] = (await get('/v1/integrations')).data;
    expect(stored).toMatchObject({ url: receiver.url, events: ['submission.completed'], description: 'CRM', enabled: true });
    expect(stored.secret_hint).toBe(`whsec_…${secret.slice(-4)}`);
    integrationId = stored.id;
    await expectAccessibleAtBothWidths(page);

    // Done: the secret is gone from the page, and the integration's own page shows only its hint.
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByText(secret).count()).toBe(0);
    await page.getByRole('link', { name: receiver.url }).click();
    await screenHeading(page, /^Integration 127\.0\.0\.1:/);
    expect(await page.getByText(stored.secret_hint).count()).toBe(1);
    expect(await page.getByText(secret).count()).toBe(0);

    // The test event: queued, delivered to the receiver signed with the secret shown, and in the log with its attempt.
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('status').filter({ hasText: 'Queued integration.ping' }).waitFor();
    expect(await deliverDue()).toBe(1);
    const ping = receiver.received.at(-1)!;
    const event = verifyWebhookSignature(ping.body, ping.headers['x-service-signature'] as string, secret) as { id: string; type: string };
    expect(event.type).toBe('integration.ping');
    await page.getByRole('button', { name: 'Refresh the log' }).click();
    const pingRow = page.getByRole('row').filter({ hasText: event.id });
    await expect.poll(() => pingRow.textContent()).toContain('Succeeded');
    expect(await pingRow.getByRole('cell').allTextContents()).toEqual([
      expect.any(String),
      expect.stringContaining('integration.ping'),
      '1',
      'Succeeded',
      '200',
      expect.stringMatching(/^\d+ ms$/),
      '—',
      '—',
      'Replay',
    ]);
  });

  it('when an admin sends a sample and replays it, then the receiver gets the event twice and the log lists both attempts', async () => {
    const { page } = admin;
    await page.getByLabel('Sample event type').selectOption('submission.completed');
    await page.getByRole('button', { name: 'Send sample' }).click();
    await page.getByRole('status').filter({ hasText: 'Queued submission.completed' }).waitFor();
    expect(await deliverDue()).toBe(1);
    const sample = JSON.parse(receiver.received.at(-1)!.body) as { id: string; synthetic: boolean };
    expect(sample.synthetic).toBe(true);

    await page
      .getByRole('button', { name: `Replay submission.completed ${sample.id}` })
      .first()
      .click();
    await page
      .getByRole('status')
      .filter({ hasText: `event ${sample.id}` })
      .waitFor();
    expect(await deliverDue()).toBe(1);
    expect(JSON.parse(receiver.received.at(-1)!.body).id).toBe(sample.id);
    await page.getByRole('button', { name: 'Refresh the log' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: sample.id }).filter({ hasText: 'Succeeded' }).count()).toBe(2);
    const logs = (await get(`/v1/integrations/${integrationId}/logs`)).data as Array<{ event_id: string; status: string }>;
    expect(logs.map((log) => log.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);

    // The log's filters are the API's: succeeded attempts of integration.ping only.
    await page.getByLabel('Event type', { exact: true }).selectOption('integration.ping');
    await expect.poll(() => page.getByRole('row').filter({ hasText: sample.id }).count()).toBe(0);
    expect(page.url()).toContain('event_type=integration.ping');
    await page.getByLabel('Event type', { exact: true }).selectOption('');
  });

  it('when an admin rotates the secret, then the new one is shown once and the API keeps the previous one for a while', async () => {
    const { page } = admin;
    await page.getByLabel('Previous secret stays valid for').selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('region', { name: 'New signing secret' });
    const secret = (await shown.getByText(/^whsec_/).textContent()) ?? '';
    const rotated = await get(`/v1/integrations/${integrationId}`);
    expect(rotated.secret_hint).toBe(`whsec_…${secret.slice(-4)}`);
    expect(Date.parse(rotated.previous_secret_expires_at) - Date.now()).toBeGreaterThan(55 * 60_000);
    await page.getByText('the previous secret also signs until').waitFor();
    await expectAccessibleAtBothWidths(page);

    // An edit with the ETag of the last read: pausing it.
    await page.getByLabel('Deliver events (unchecked: paused)').uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Paused', { exact: true }).first().waitFor();
    expect((await get(`/v1/integrations/${integrationId}`)).enabled).toBe(false);
  });

  it('when an admin invites, resends and revokes, then the invitation follows; removing the only admin shows the API refusal', async () => {
    const { page } = admin;
    await openScreen(page, 'Team', 'Team');
    await page.getByRole('row').filter({ hasText: 'owner@acme.test' }).filter({ hasText: '(you)' }).waitFor();
    await page.getByLabel('Email').fill('new.person@acme.test');
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').filter({ hasText: 'Invitation emailed to new.person@acme.test, as viewer.' }).waitFor();
    const invitation = page.getByRole('row').filter({ hasText: 'new.person@acme.test' });
    await expect.poll(() => invitation.textContent()).toContain('Pending');
    const [invite] = (await get('/v1/team/invites')).data;
    expect(invite).toMatchObject({ email: 'new.person@acme.test', role: 'viewer', status: 'pending' });

    await page.getByRole('button', { name: 'Resend the invitation to new.person@acme.test' }).click();
    await page.getByRole('status').filter({ hasText: 'Invitation emailed again to new.person@acme.test.' }).waitFor();
    await expectAccessibleAtBothWidths(page);
    await page.getByRole('button', { name: 'Revoke the invitation to new.person@acme.test' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => invitation.textContent()).toContain('Revoked');
    expect((await get('/v1/team/invites')).data[0]).toMatchObject({ id: invite.id, status: 'revoked' });

    await page.getByRole('button', { name: 'Remove owner@acme.test' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: /only admin/i });
    await refusal.waitFor();
    expect((await get('/v1/team/members')).data).toEqual([expect.objectContaining({ email: 'owner@acme.test' })]);
  });

  it('when an admin creates and revokes an API key and creates and edits a publishable key, then the API holds the change', async () => {
    const { page } = admin;
    await openScreen(page, 'API keys', 'API keys');
    await page.getByLabel('Key name').fill('CRM sync');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = page.getByRole('region', { name: 'Secret of CRM sync' });
    const secret = (await shown.getByText(/^svc_live_/).textContent()) ?? '';
    const me = await dashboard.api.call('get', '/v1/me', secret);
    expect(me.body).toMatchObject({ auth_type: 'api_key', name: 'CRM sync', scope: 'read', environment: 'live' });
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByText(secret).count()).toBe(0);
    const row = page.getByRole('row').filter({ hasText: 'CRM sync' });
    await expect.poll(() => row.textContent()).toContain(`svc_live_…${secret.slice(-4)}`);
    await row.getByRole('button', { name: 'Revoke CRM sync' }).click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => row.textContent()).toContain('Revoked');
    expect((await get(`/v1/api_keys/${me.body.id}`)).status).toBe('revoked');
    expect((await dashboard.api.call('get', '/v1/me', secret)).status).toBe(401);

    await page.getByLabel('Name', { exact: true }).fill('Website');
    await page.getByLabel('Allowed origins').fill('https://www.acme.test');
    await page.getByRole('button', { name: 'Create publishable key' }).click();
    await page.getByRole('status').filter({ hasText: 'Publishable key Website created.' }).waitFor();
    const [created] = (await get('/v1/publishable_keys')).data;
    expect(created).toMatchObject({ name: 'Website', environment: 'live', allowed_origins: ['https://www.acme.test'], status: 'active' });
    await page.getByRole('row').filter({ hasText: created.value }).waitFor();

    // Edited: a live key refuses a plain-HTTP origin, shown at that origin, and what was typed stays for the fix.
    await page.getByRole('button', { name: 'Edit Website' }).click();
    const form = page.getByRole('region', { name: 'Edit Website' });
    await form.getByLabel('Allowed origins').fill('https://www.acme.test\nhttp://shop.acme.test');
    await form.getByRole('button', { name: 'Save key' }).click();
    await form.getByText(/^http:\/\/shop\.acme\.test: /).waitFor();
    expect(await form.getByLabel('Allowed origins').inputValue()).toBe('https://www.acme.test\nhttp://shop.acme.test');
    await expectAccessibleAtBothWidths(page);
    await form.getByLabel('Allowed origins').fill('https://www.acme.test\nhttps://shop.acme.test');
    await form.getByRole('button', { name: 'Save key' }).click();
    await page.getByRole('status').filter({ hasText: 'Publishable key Website saved.' }).waitFor();
    expect((await get(`/v1/publishable_keys/${created.id}`)).allowed_origins).toEqual(['https://www.acme.test', 'https://shop.acme.test']);
    await page.getByRole('row').filter({ hasText: 'https://shop.acme.test' }).waitFor();
  });

  it('when an admin opens usage, then its meters show the figures GET /v1/usage returns', async () => {
    const { page } = admin;
    await openScreen(page, 'Usage', 'Usage');
    const deliveries = page.getByRole('meter', { name: 'Webhook deliveries' });
    await deliveries.waitFor();
    const usage = await get('/v1/usage');
    // Three attempts reached the receiver (the test event, the sample and its replay); API requests keep counting.
    expect(usage.current_period.webhook_deliveries).toBe(3);
    const meterValue = (meter: typeof deliveries) => meter.evaluate((element) => (element as unknown as { value: number }).value);
    expect(await meterValue(deliveries)).toBe(3);
    expect(await meterValue(page.getByRole('meter', { name: 'Submissions' }))).toBe(usage.current_period.submissions);
    // The meter's description says the figures in words: this month's and last month's.
    const monthOf = (period: { starts_at: string }) =>
      new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(period.starts_at));
    const described = page.locator(`#${await deliveries.getAttribute('aria-describedby')}`);
    const previous = usage.previous_period.webhook_deliveries;
    expect(await described.textContent()).toBe(`3 in ${monthOf(usage.current_period)}; ${previous} in ${monthOf(usage.previous_period)}`);
    await page.getByText(`${usage.rate_limits.per_workspace_per_minute.toLocaleString('en-US')} requests a minute`).waitFor();
    await expectAccessibleAtBothWidths(page);
  });

  it('when an admin opens the audit log, then it lists what was just done, filtered by type as the API does', async () => {
    const { page } = admin;
    await openScreen(page, 'Audit log', 'Audit log');
    const rows = page.getByRole('row');
    await rows.filter({ hasText: 'publishable_key.updated' }).waitFor();
    const types = (await get('/v1/audit_events')).data.map((event: { type: string }) => event.type);
    const done = ['integration.created', 'integration.updated', 'integration.secret_rotated', 'member.invited', 'invite.resent'];
    for (const type of [...done, 'invite.revoked', 'api_key.created', 'api_key.revoked', 'publishable_key.created']) {
      expect(types).toContain(type);
      expect(await rows.filter({ hasText: type }).count()).toBeGreaterThan(0);
    }
    await expectAccessibleAtBothWidths(page);
    await page.getByLabel('Event type').selectOption('invite.revoked');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(1).textContent()).toContain('new.person@acme.test');
    expect(page.url()).toContain('type=invite.revoked');

    // Everything the page asked for is one of the contract's operations, with the query parameters it declares.
    const verdicts = checkAgainstContract(admin.requests);
    expect(verdicts.filter((verdict) => verdict.problem)).toEqual([]);
    const used = new Set(verdicts.map((verdict) => verdict.operationId));
    const integrations = ['listIntegrations', 'createIntegration', 'getIntegration', 'updateIntegration', 'rotateIntegrationSecret'];
    const deliveries = ['dispatchIntegration', 'listIntegrationLogs'];
    const team = ['listMembers', 'removeMember', 'listInvites', 'createInvite', 'resendInvite', 'revokeInvite'];
    const keys = ['listApiKeys', 'createApiKey', 'revokeApiKey', 'listPublishableKeys', 'createPublishableKey', 'getPublishableKey'];
    for (const operation of [...integrations, ...deliveries, ...team, ...keys, 'updatePublishableKey', 'getUsage', 'listAuditEvents']) {
      expect(used).toContain(operation);
    }
  });
});

describe('the settings screens, as a viewer', () => {
  it('when a viewer opens them, then integrations are read only and keys, team, usage and audit say they are for admins', async () => {
    const id = `mem_${randomBytes(12).toString('hex')}`;
    await dashboard.api.store.team.addMember(dashboard.api.workspace.workspace_id, {
      id,
      object: 'member',
      email: 'vera@acme.test',
      name: null,
      role: 'viewer',
      created_at: new Date().toISOString(),
    });
    const [integration] = (await get('/v1/integrations')).data;
    const viewer = await dashboard.signIn('vera@acme.test', { width: 360, path: `integrations/${integration.id}` });
    const { page } = viewer;
    const main = page.getByRole('main');
    await screenHeading(page, /^Integration 127\.0\.0\.1:/);
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'integration.ping' }).first().waitFor();
    expect(await main.getByRole('button', { name: /Save|Delete|Rotate|Send|Replay/ }).count()).toBe(0);
    // The integration's settings and the secret's choices are absent (or at most read only) ...
    const settings = ['Endpoint URL', 'Description (optional)', 'Deliver events (unchecked: paused)', 'Only events of this form'];
    for (const label of [...settings, 'Sample event type', 'Previous secret stays valid for']) {
      const input = main.getByLabel(label, { exact: true });
      if ((await input.count()) > 0) expect(await input.isEditable()).toBe(false);
    }
    // ... and what still takes input only filters the delivery log, which is read.
    const editable: string[] = [];
    for (const role of ['textbox', 'checkbox', 'radio', 'combobox', 'spinbutton', 'switch', 'slider'] as const) {
      for (const control of await main.getByRole(role).all()) {
        if (!(await control.isEditable())) continue;
        editable.push(
          await control.evaluate((element) => (element as unknown as { labels: Array<{ textContent: string }> }).labels[0]!.textContent),
        );
      }
    }
    expect(editable).toEqual(['Status', 'Event type']);
    expect(await dashboard.axeViolations(page)).toEqual([]);

    await openScreen(page, 'Integrations', 'Integrations');
    expect(await page.getByRole('button', { name: 'Create integration' }).count()).toBe(0);
    for (const [link, heading] of [
      ['API keys', 'API keys'],
      ['Team', 'Team'],
      ['Usage', 'Usage'],
      ['Audit log', 'Audit log'],
    ] as const) {
      await openScreen(page, link, heading);
      await page.getByText('Only admins can see').waitFor();
      expect(
        await page
          .getByRole('button')
          .filter({ hasText: /Revoke|Remove|Send invitation|Create/ })
          .count(),
      ).toBe(0);
    }
    expect(await dashboard.axeViolations(page)).toEqual([]);

    // The viewer's dashboard only read: every request but the sign-in's token exchange was a GET the contract lists.
    expect(writesOf(viewer.requests)).toEqual([]);
    expect(checkAgainstContract(viewer.requests).filter((verdict) => verdict.problem)).toEqual([]);
    expect(viewer.requests).toContainEqual({ method: 'GET', path: `/v1/integrations/${integration.id}` });
    expect(viewer.refusals).toEqual([]);
  });
});
