/**
 * GET /v1/usage: live submissions, API requests and webhook deliveries of the current and previous calendar month,
 * the plan and the rate limits in effect; test mode and publishable keys' requests never metered.
 */
import { describe, expect, it } from 'vitest';
import { createForm, createIntegration, formBody, PUBLIC_URL, submit } from '../support/factories.js';
import { expectEnvelopeHeaders, expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';
import { testClock, testWebhookUrls } from './integrations-support.js';

const clock = testClock('2026-10-20T12:00:00.000Z');
const api = useWatchedApi(() => ({ rateLimits: generousLimits, webhookUrls: testWebhookUrls(), now: clock.now }));

const answers = { email: 'ana@example.com' };

/** Records a successful attempt of a queued delivery, as the delivery worker does. */
const attempted = (deliveryId: string) =>
  api.store.integrations.recordAttempt(deliveryId, {
    status: 'succeeded',
    url: PUBLIC_URL,
    responseStatus: 200,
    durationMs: 12,
    error: null,
    nextAttemptAt: null,
  });

describe('GET /v1/usage', () => {
  it('when a workspace works in October and November, then each month counts its live activity and nothing of test mode', async () => {
    const workspace = await api.otherWorkspace('business');
    const caller = { call: api.call, workspace: { ...api.workspace, ...workspace } };
    const live = workspace.live_admin_key;
    const test = workspace.test_admin_key;

    // October (the clock's month): 1 form, 2 live submissions, 1 test submission, 1 live delivery attempt made.
    const form = await createForm(caller, formBody('Metered'), live); // live request 1
    await submit(caller, { form_id: form.id, answers }, live); // 2
    await submit(caller, { form_id: form.id, answers }, live); // 3
    await submit(caller, { form_id: form.id, answers }, test);
    const integration = await createIntegration(caller, { events: ['form.created'] }, live); // 4
    const dispatched = await api.call('post', `/v1/integrations/${integration.id}/dispatch`, live); // 5
    expect(dispatched.status).toBe(202);
    await attempted(dispatched.body.id);
    const testIntegration = await createIntegration(caller, { events: ['form.created'] }, test);
    const testDispatch = await api.call('post', `/v1/integrations/${testIntegration.id}/dispatch`, test);
    await attempted(testDispatch.body.id);
    for (let i = 0; i < 3; i++) expect((await api.call('get', '/v1/me', test)).status).toBe(200);

    // November: one more live submission and the usage read itself (live requests 6 and 7).
    clock.advance(20 * 24 * 3600 * 1000);
    await submit(caller, { form_id: form.id, answers }, live);
    const res = await api.call('get', '/v1/usage', live);
    expect(res.status).toBe(200);
    expectEnvelopeHeaders(res);
    expect(res.body).toEqual({
      object: 'usage',
      workspace_id: workspace.workspace_id,
      plan: 'business',
      current_period: {
        month: '2026-11',
        starts_at: '2026-11-01T00:00:00.000Z',
        ends_at: '2026-12-01T00:00:00.000Z',
        submissions: 1,
        api_requests: 2,
        webhook_deliveries: 0,
      },
      previous_period: {
        month: '2026-10',
        starts_at: '2026-10-01T00:00:00.000Z',
        ends_at: '2026-11-01T00:00:00.000Z',
        submissions: 2,
        api_requests: 5,
        webhook_deliveries: 1,
      },
      rate_limits: {
        per_key_per_second: generousLimits.perKeyPerSecond,
        per_workspace_per_minute: generousLimits.perWorkspacePerMinute,
        custom: false,
      },
      request_id: res.body.request_id,
    });

    // A test admin key reads the same live figures; its own request is not metered.
    const fromTest = await api.call('get', '/v1/usage', test);
    expect(fromTest.status).toBe(200);
    expect(fromTest.body.current_period.api_requests).toBe(2);
  });

  it('when submissions are deleted or erased and the integration is deleted, then the month already metered stays', async () => {
    const workspace = await api.otherWorkspace('business');
    const caller = { call: api.call, workspace: { ...api.workspace, ...workspace } };
    const live = workspace.live_admin_key;
    const form = await createForm(caller, formBody('Metered, then forgotten'), live);
    const kept = await submit(caller, { form_id: form.id, answers: { email: 'kept@example.com' } }, live);
    await submit(caller, { form_id: form.id, answers: { email: 'forget-me@example.com' } }, live);
    const integration = await createIntegration(caller, { events: ['form.created'] }, live);
    const dispatched = await api.call('post', `/v1/integrations/${integration.id}/dispatch`, live);
    expect(dispatched.status).toBe(202);
    await attempted(dispatched.body.id);
    await attempted(dispatched.body.id); // an outcome recorded twice (a lease taken over) is one attempt
    const metered = { submissions: 2, webhook_deliveries: 1 };
    expect((await api.call('get', '/v1/usage', live)).body.current_period).toMatchObject(metered);

    expect((await api.call('delete', `/v1/submissions/${kept.id}`, live)).status).toBe(200);
    const erased = await api.call('post', '/v1/submissions/erase', live).send({ email: 'forget-me@example.com' });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect((await api.call('delete', `/v1/integrations/${integration.id}`, live)).status).toBe(200);
    expect((await api.call('get', '/v1/usage', live)).body.current_period).toMatchObject(metered);
  });

  it('when counts were flushed by several servers, then the month adds them up', async () => {
    const workspace = await api.otherWorkspace('pro');
    const before = await api.call('get', '/v1/usage', workspace.live_admin_key);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    const previous = before.body.previous_period.month;
    await api.store.usage.addApiRequests([
      { workspaceId: workspace.workspace_id, month: previous, count: 1000 },
      { workspaceId: workspace.workspace_id, month: previous, count: 234 },
    ]);
    await api.store.usage.addApiRequests([{ workspaceId: workspace.workspace_id, month: '2020-01', count: 7 }]);
    const res = await api.call('get', '/v1/usage', workspace.live_admin_key);
    expect(res.body.previous_period).toMatchObject({ month: previous, api_requests: 1234 });
    expect(res.body.current_period).toMatchObject({ month: before.body.current_period.month, api_requests: 2 });
  });

  it("when a form's visitors call the public operations with a live publishable key, then they are not billed as API requests", async () => {
    const workspace = await api.otherWorkspace('business');
    const caller = { call: api.call, workspace: { ...api.workspace, ...workspace } };
    const live = workspace.live_admin_key;
    const form = await createForm(caller, formBody('Visited'), live); // live request 1
    const site = await createPublishableKey(caller, { environment: 'live' }); // 2
    for (let visit = 0; visit < 3; visit++) expect((await api.call('get', `/v1/public/forms/${form.id}`, site.value)).status).toBe(200);
    const res = await api.call('get', '/v1/usage', live); // 3
    expect(res.status).toBe(200);
    expect(res.body.current_period).toMatchObject({ api_requests: 3, submissions: 0 });
  });

  it('when a key without the admin scope asks, then 403 insufficient_scope', async () => {
    const reader = await api.createKey({ name: 'reader', environment: 'live', scope: 'read_write' });
    expectProblem(await api.call('get', '/v1/usage', reader.secret), 403, 'permission_error', 'insufficient_scope');
  });
});
