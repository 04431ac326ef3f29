/**
 * Deliveries are independent of each other: an endpoint that hangs holds only its own integration's places, and
 * its circuit breaker holds its attempts back (pending, not spent) and, after a long run of failures, disables it
 * with an `integration.disabled` event. The breaker's tests use a test clock and short thresholds.
 */
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { httpsTransport } from '../../src/adapters/webhook-transport.js';
import type { CircuitPolicy } from '../../src/domain/integrations/circuit-breaker.js';
import type { WebhookRequest, WebhookTransport } from '../../src/domain/integrations/delivery-transport.js';
import type { BackoffPolicy } from '../../src/domain/integrations/retry-schedule.js';
import { createDeliveryWorker, defaultConcurrency, startDeliveryWorker } from '../../src/domain/integrations/worker.js';
import { newId } from '../../src/ids.js';
import { createForm, createIntegration, type Integration, logsOf, PUBLIC_URL } from '../support/factories.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { schemaErrors, startReceiver, testClock, testWebhookUrls } from './integrations-support.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

describe('fairness', () => {
  it("when one workspace's endpoint hangs with 100 deliveries queued, then another workspace's delivery arrives within 2 s", async () => {
    const api = await createTestApi({ webhookUrls: testWebhookUrls(true) });
    const hanging = await startReceiver([200], { hang: true });
    const healthy = await startReceiver([200]);
    cleanup.push(
      () => api.close(),
      () => healthy.close(),
    );
    const stuck = await createIntegration(api, { url: hanging.url, events: ['form.created'] });
    for (let i = 0; i < 100; i++) {
      const entry = api.services.events.outboxEvent({
        workspaceId: api.workspace.workspace_id,
        environment: 'live',
        type: 'form.created',
        formId: null,
        data: { object: { object: 'form', id: newId('form') } },
      })!;
      await api.store.integrations.publish(entry.event, entry.subscribers);
    }
    const other = await api.otherWorkspace();
    await createIntegration(api, { url: healthy.url, events: ['form.created'] }, other.live_admin_key);

    // One HTTPS transport per receiver: their self-signed certificates share a subject name, which one trust store cannot tell apart.
    const toHanging = httpsTransport({ extraCa: hanging.cert });
    const toHealthy = httpsTransport({ extraCa: healthy.cert });
    const transport: WebhookTransport = (request) => (request.url === healthy.url ? toHealthy : toHanging)(request);
    const worker = startDeliveryWorker(api.services, { transport, pollIntervalMs: 50 });
    // The closed endpoint lets the attempts in flight fail at once, so stopping does not wait for their timeout.
    cleanup.push(
      () => worker.stop(),
      () => hanging.close(),
    );
    await expect.poll(() => hanging.received.length, { timeout: 10_000, interval: 10 }).toBe(defaultConcurrency.perIntegration);

    // Timed from the moment B's event is stored (the create's response), as B's endpoint would see it.
    const form = await createForm(api, { name: 'Elsewhere' }, other.live_admin_key);
    const started = performance.now();
    await expect.poll(() => healthy.received.length, { timeout: 2_000, interval: 10 }).toBe(1);
    const delayMs = performance.now() - started;
    expect(delayMs).toBeLessThan(2_000);
    expect(JSON.parse(healthy.received[0]!.body)).toMatchObject({ type: 'form.created', data: { object: { id: form.id } } });
    // The hanging endpoint holds its integration's places and no more.
    expect(hanging.received).toHaveLength(defaultConcurrency.perIntegration);
    expect(await logsOf(api, stuck.id, undefined, '?status=pending&limit=100')).toHaveLength(100);
  });
});

/** Every retry 1 s after a failure, so that the breaker, not the backoff, decides when attempts are made. */
const quickRetries: BackoffPolicy = { baseMs: 1_000, capMs: 1_000, minMs: 1_000 };
const START = '2026-11-04T10:00:00.000Z';

async function setup() {
  const clock = testClock(START);
  const api = await createTestApi({ now: clock.now, webhookUrls: testWebhookUrls() });
  cleanup.push(() => api.close());
  return { api, clock };
}

/** A transport answering each URL with the status the test sets for it (503 for any other), recording the requests. */
function scriptedTransport(statuses: Record<string, number>) {
  const sent: WebhookRequest[] = [];
  const transport: WebhookTransport = async (request) => {
    sent.push(request);
    return { status: statuses[request.url] ?? 503 };
  };
  return { sent, transport, statuses };
}

const getIntegration = async (api: TestApi, id: string): Promise<Integration> => {
  const res = await api.call('get', `/v1/integrations/${id}`);
  expect(res.status).toBe(200);
  return res.body as Integration;
};

describe('the circuit breaker', () => {
  const circuit: CircuitPolicy = {
    pauseAfterFailures: 3,
    basePauseMs: 60_000,
    maxPauseMs: 3_600_000,
    disableAfterMs: 86_400_000,
    disableAfterFailures: 10,
  };

  it('when attempts fail 3 times in a row, then the integration pauses with a doubling pause, its attempts stay pending, and a success closes it', async () => {
    const { api, clock } = await setup();
    const integration = await createIntegration(api, { url: PUBLIC_URL, events: ['form.created'] });
    for (const name of ['One', 'Two', 'Three']) await createForm(api, { name });
    const failing = scriptedTransport({});
    const worker = createDeliveryWorker(api.services, { transport: failing.transport, circuit, backoff: quickRetries });

    expect(await worker.runDue()).toBe(3);
    clock.advance(30_000);
    // The retries came due after 1 s, but the breaker holds them for a minute: nothing is sent, nothing is spent.
    expect(await worker.runDue()).toBe(0);
    let pending = await logsOf(api, integration.id, undefined, '?status=pending');
    expect(pending.map((log) => log.attempt)).toEqual([2, 2, 2]);

    clock.advance(30_000);
    // Once the pause is over, one attempt probes the endpoint; it fails, and the next pause is twice as long.
    expect(await worker.runDue()).toBe(1);
    clock.advance(60_000);
    expect(await worker.runDue()).toBe(0);
    expect(failing.sent).toHaveLength(4);

    const healthy = scriptedTransport({ [PUBLIC_URL]: 200 });
    clock.advance(60_000);
    // The probe succeeds, the breaker closes, and the other two go out in the same run.
    expect(await createDeliveryWorker(api.services, { transport: healthy.transport, circuit, backoff: quickRetries }).runDue()).toBe(3);
    pending = await logsOf(api, integration.id, undefined, '?status=pending');
    expect(pending).toEqual([]);
    const logs = await logsOf(api, integration.id);
    expect(logs.filter((log) => log.status === 'succeeded')).toHaveLength(3);
    expect(await getIntegration(api, integration.id)).toMatchObject({ enabled: true, disabled_at: null, disabled_reason: null });
  });

  it('when a paused integration is dispatched, then the dispatch is sent at once, whatever the breaker says', async () => {
    const { api, clock } = await setup();
    const integration = await createIntegration(api, { url: PUBLIC_URL, events: ['form.created'] });
    for (const name of ['One', 'Two', 'Three']) await createForm(api, { name });
    const scripted = scriptedTransport({});
    const worker = createDeliveryWorker(api.services, { transport: scripted.transport, circuit, backoff: quickRetries });
    expect(await worker.runDue()).toBe(3);
    clock.advance(5_000);
    scripted.statuses[PUBLIC_URL] = 200;
    const ping = await api.call('post', `/v1/integrations/${integration.id}/dispatch`).expect(202);
    // The ping goes out; its success closes the breaker, and the held retries follow in the same run.
    expect(await worker.runDue()).toBe(4);
    expect(scripted.sent[3]!.headers['X-Service-Event-Id']).toBe(ping.body.event_id);
  });
});

describe('disabling', () => {
  const circuit: CircuitPolicy = {
    pauseAfterFailures: 2,
    basePauseMs: 1_000,
    maxPauseMs: 1_000,
    disableAfterMs: 10_000,
    disableAfterFailures: 3,
  };
  const MONITOR_URL = 'https://hooks.example.com/monitor';

  it('when attempts keep failing past the limit, then the integration is disabled, says why, and integration.disabled is sent; enabling it again resets the breaker', async () => {
    const { api, clock } = await setup();
    const failing = await createIntegration(api, { url: PUBLIC_URL, events: ['form.created'] });
    const monitor = await createIntegration(api, { url: MONITOR_URL, events: ['integration.disabled'] });
    await createForm(api, { name: 'Never delivered' });
    const scripted = scriptedTransport({ [MONITOR_URL]: 200 });
    const worker = createDeliveryWorker(api.services, { transport: scripted.transport, circuit, backoff: quickRetries });

    expect(await worker.runDue()).toBe(1);
    clock.advance(5_000);
    expect(await worker.runDue()).toBe(1);
    expect(await getIntegration(api, failing.id)).toMatchObject({ enabled: true, disabled_at: null });
    clock.advance(5_000);
    // The third failure in a row, 10 s after the first: disabled, and the monitor hears of it in the same run.
    expect(await worker.runDue()).toBe(2);
    const disabledAt = clock.now().toISOString();

    const disabled = await getIntegration(api, failing.id);
    expect(disabled).toMatchObject({
      enabled: false,
      disabled_at: disabledAt,
      disabled_reason: 'delivery_failures',
      updated_at: disabledAt,
    });
    expect(schemaErrors('Integration', disabled)).toEqual([]);

    const notice = scripted.sent.find((request) => request.url === MONITOR_URL)!;
    expect(notice.headers['X-Service-Event-Type']).toBe('integration.disabled');
    const event = JSON.parse(notice.body);
    expect(event).toMatchObject({ type: 'integration.disabled', test: false, data: { object: { id: failing.id, enabled: false } } });
    expect(schemaErrors('IntegrationDisabledEvent', event)).toEqual([]);
    expect(await logsOf(api, monitor.id)).toEqual([expect.objectContaining({ event_type: 'integration.disabled', status: 'succeeded' })]);

    // The queued retry waits while disabled, and new events are not queued.
    clock.advance(60_000);
    await createForm(api, { name: 'While disabled' });
    expect(await worker.runDue()).toBe(0);
    expect(await logsOf(api, failing.id, undefined, '?status=pending')).toEqual([expect.objectContaining({ attempt: 4 })]);

    const reenabled = await api.call('patch', `/v1/integrations/${failing.id}`).send({ enabled: true });
    expect(reenabled.status).toBe(200);
    expect(reenabled.body).toMatchObject({ enabled: true, disabled_at: null, disabled_reason: null });
    // A fresh breaker: one more failure neither pauses nor disables it again.
    expect(await worker.runDue()).toBe(1);
    expect(await getIntegration(api, failing.id)).toMatchObject({ enabled: true, disabled_at: null });
    expect(scripted.sent.filter((request) => request.url === PUBLIC_URL)).toHaveLength(4);
  });
});
