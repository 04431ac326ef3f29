/**
 * What the delivery worker sends: real deliveries to a local HTTPS receiver (signature, headers, the body the
 * webhook schemas describe), retries with backoff, the 8-attempt limit, test mode, durability and a graceful
 * stop. The clock is a test clock moved by hand, so no test waits for a backoff.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dnsWebhookUrlPolicy } from '../../src/adapters/dns-resolver.js';
import { httpsTransport } from '../../src/adapters/webhook-transport.js';
import { verifyWebhookSignature } from '../../src/client/webhooks.js';
import { noEvents } from '../../src/domain/events.js';
import type { WebhookRequest, WebhookTransport } from '../../src/domain/integrations/delivery-transport.js';
import { MAX_ATTEMPTS } from '../../src/domain/integrations/retry-schedule.js';
import { createDeliveryWorker, type DeliveryWorkerOptions, startDeliveryWorker, USER_AGENT } from '../../src/domain/integrations/worker.js';
import { createForm, createIntegration, logsOf, PUBLIC_URL, submit } from '../support/factories.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { createStoreDatabase, createTestStore, type TestDatabase } from '../support/stores.js';
import { fakeResolver, schemaErrors, startReceiver, testClock, testWebhookUrls } from './integrations-support.js';
import { anaAnswers, demoForm } from './submissions-support.js';

const START = '2026-11-04T10:00:00.000Z';
const HOUR = 3600_000;

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The app on a fresh store, or on `database` (which a test can open again, as a restarted process would). */
async function setup(database?: TestDatabase) {
  const clock = testClock(START);
  const store = database ? await database.open() : await createTestStore();
  // Loopback is allowed, as the operator's ALLOW_PRIVATE_WEBHOOK_URLS does for local testing.
  const api = await createTestApi({ store, now: clock.now, webhookUrls: testWebhookUrls(true) });
  return { api, clock };
}

/**
 * A worker on the app's services, sending over HTTPS that trusts the receiver's certificate (none: only the public
 * roots); `random: 0.5` makes every backoff exactly half its ceiling.
 */
const workerFor = (api: TestApi, receiver: Receiver | null, options: Partial<DeliveryWorkerOptions> = {}) =>
  createDeliveryWorker(api.services, { transport: httpsTransport({ extraCa: receiver?.cert }), random: () => 0.5, ...options });

/** A transport that must never be used. */
function forbiddenTransport() {
  const calls: WebhookRequest[] = [];
  const transport: WebhookTransport = async (request) => {
    calls.push(request);
    throw new Error('no connection may be opened');
  };
  return { calls, transport };
}

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

describe('a live delivery', () => {
  let api: TestApi;
  let clock: ReturnType<typeof testClock>;
  let receiver: Receiver;
  beforeAll(async () => {
    ({ api, clock } = await setup());
    receiver = await startReceiver([200]);
  });
  afterAll(async () => {
    await receiver.close();
    await api.close();
  });

  it('when a form is created, then the receiver gets a signed POST whose body is the form.created event', async () => {
    const integration = await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    const form = await createForm(api, { name: 'Delivered' });
    const before = receiver.received.length;
    expect(await workerFor(api, receiver).runDue()).toBe(1);

    const request = receiver.received[before]!;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks/form-funnel');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe(USER_AGENT);
    const event = JSON.parse(request.body);
    expect(request.headers['x-service-event-id']).toBe(event.id);
    expect(request.headers['x-service-event-type']).toBe('form.created');
    expect(request.headers['x-service-signature']).toMatch(/^t=[0-9]{1,12},v1=[0-9a-f]{64}$/);
    expect(request.headers['x-service-signature']).toContain(`t=${clock.seconds()},`);
    expect(
      verifyWebhookSignature(request.body, request.headers['x-service-signature'] as string, integration.signing_secret, {
        now: clock.seconds(),
      }),
    ).toEqual(event);
    expect(() =>
      verifyWebhookSignature(request.body, request.headers['x-service-signature'] as string, 'whsec_wrongwrongwrongwrongwrongwrong00', {
        now: clock.seconds(),
      }),
    ).toThrow();

    expect(event).toMatchObject({
      object: 'event',
      type: 'form.created',
      created_at: START,
      test: false,
      data: { object: { id: form.id, object: 'form', version: 1 } },
    });
    expect(event.id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(schemaErrors('FormCreatedEvent', event)).toEqual([]);
    expect(JSON.stringify(request.headers)).not.toContain(integration.signing_secret);

    const [log] = await logsOf(api, integration.id);
    expect(log).toMatchObject({
      event_id: event.id,
      event_type: 'form.created',
      attempt: 1,
      status: 'succeeded',
      url: receiver.url,
      mock: false,
      response_status: 200,
      error: null,
      next_attempt_at: null,
      test: false,
    });
    expect(log!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(log!.duration_ms).toBeLessThanOrEqual(10_000);
    expect(schemaErrors('IntegrationLog', log)).toEqual([]);
  });

  it('when a form is updated and deleted, then form.updated and form.deleted arrive, each matching its webhook schema', async () => {
    await createIntegration(api, { url: receiver.url, events: ['form.updated', 'form.deleted'] });
    const form = await createForm(api, { name: 'Lifecycle' });
    await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Lifecycle 2' }).expect(200);
    await api.call('delete', `/v1/forms/${form.id}`).expect(200);
    const before = receiver.received.length;
    await workerFor(api, receiver).runDue();
    const events = receiver.received.slice(before).map((request) => JSON.parse(request.body));
    const updated = events.find((event) => event.type === 'form.updated');
    const deleted = events.find((event) => event.type === 'form.deleted');
    expect(updated).toMatchObject({ data: { object: { id: form.id, name: 'Lifecycle 2', version: 2 }, previous_version: 1 } });
    expect(deleted).toMatchObject({ data: { object: { id: form.id, object: 'form', deleted: true } } });
    expect(schemaErrors('FormUpdatedEvent', updated)).toEqual([]);
    expect(schemaErrors('FormDeletedEvent', deleted)).toEqual([]);
  });

  it('when an integration is dispatched, then a ping arrives, and a replay resends the same event id and bytes', async () => {
    const integration = await createIntegration(api, { url: receiver.url, events: ['form.created'], enabled: false });
    const ping = await api.call('post', `/v1/integrations/${integration.id}/dispatch`).expect(202);
    const before = receiver.received.length;
    await workerFor(api, receiver).runDue();
    const sent = receiver.received[before]!;
    const event = JSON.parse(sent.body);
    expect(event).toMatchObject({
      id: ping.body.event_id,
      type: 'integration.ping',
      data: { object: { object: 'integration', id: integration.id } },
    });
    expect(schemaErrors('IntegrationPingEvent', event)).toEqual([]);

    clock.advance(60_000);
    await api.call('post', `/v1/integrations/${integration.id}/dispatch`).send({ event_id: ping.body.event_id }).expect(202);
    await workerFor(api, receiver).runDue();
    const replayed = receiver.received[before + 1]!;
    expect(replayed.body).toBe(sent.body);
    expect(replayed.headers['x-service-event-id']).toBe(ping.body.event_id);
    expect(replayed.headers['x-service-signature']).toContain(`t=${clock.seconds()},`);
  });

  it('when the integration is paused, then its queued attempts wait and go out once it is resumed', async () => {
    const integration = await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    await createForm(api, { name: 'Queued before pause' });
    await api.call('patch', `/v1/integrations/${integration.id}`).send({ enabled: false }).expect(200);
    await createForm(api, { name: 'Created while paused' });
    await workerFor(api, receiver).runDue();
    expect(await logsOf(api, integration.id)).toEqual([expect.objectContaining({ status: 'pending' })]);
    await api.call('patch', `/v1/integrations/${integration.id}`).send({ enabled: true }).expect(200);
    await workerFor(api, receiver).runDue();
    expect(await logsOf(api, integration.id)).toEqual([expect.objectContaining({ status: 'succeeded' })]);
  });

  it('when the URL has a host name, then the connection goes to the address the check approved (no second DNS answer)', async () => {
    const integration = await createIntegration(api, { url: receiver.namedUrl, events: ['form.created'] });
    await createForm(api, { name: 'By name' });
    const before = receiver.received.length;
    await workerFor(api, receiver).runDue();
    const byName = receiver.received.slice(before).filter((request) => request.headers.host === new URL(receiver.namedUrl).host);
    expect(byName).toHaveLength(1);
    expect(await logsOf(api, integration.id)).toEqual([expect.objectContaining({ status: 'succeeded', url: receiver.namedUrl })]);
  });

  it('when the endpoint refuses the connection, then the attempt fails with that reason and a retry is queued', async () => {
    const integration = await createIntegration(api, { url: 'https://127.0.0.1:1/closed', events: ['form.created'] });
    await createForm(api, { name: 'Refused' });
    await workerFor(api, receiver).runDue();
    const [retry, failed] = await logsOf(api, integration.id);
    expect(failed).toMatchObject({ attempt: 1, status: 'failed', response_status: null, error: 'The connection was refused.' });
    expect(retry).toMatchObject({ attempt: 2, status: 'pending' });
  });

  it("when the endpoint's certificate is not trusted, then the attempt fails with a TLS error", async () => {
    const integration = await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    await createForm(api, { name: 'Untrusted' });
    await workerFor(api, null).runDue();
    const [, failed] = await logsOf(api, integration.id);
    expect(failed).toMatchObject({ status: 'failed', response_status: null });
    expect(failed!.error).toMatch(/^TLS error: /);
  });

  it('when the URL resolves to a private address at delivery time, then nothing is sent and the attempt fails', async () => {
    const integration = await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    await createForm(api, { name: 'Rebound' });
    const { calls, transport } = forbiddenTransport();
    await workerFor(api, receiver, { allowPrivateWebhookUrls: false, transport }).runDue();
    expect(calls).toEqual([]);
    const [, failed] = await logsOf(api, integration.id);
    expect(failed).toMatchObject({ status: 'failed', response_status: null, duration_ms: null });
    expect(failed!.error).toContain('public https');
  });
});

describe('submission events', () => {
  it('when a submission is created and rescored, then both events arrive matching their webhook schemas', async () => {
    const { api } = await setup();
    const receiver = await startReceiver([200]);
    cleanup.push(
      () => receiver.close(),
      () => api.close(),
    );
    const form = await createForm(api, demoForm());
    const integration = await createIntegration(api, {
      url: receiver.url,
      events: ['submission.created', 'submission.rescored'],
      form_id: form.id,
    });
    const submission = await submit(api, { form_id: form.id, answers: anaAnswers() });
    await api.call('post', `/v1/submissions/${submission.id}/rescore`).expect(200);
    expect(await workerFor(api, receiver).runDue()).toBe(2);
    const events = receiver.received.map((request) => JSON.parse(request.body));
    const created = events.find((event) => event.type === 'submission.created');
    const rescored = events.find((event) => event.type === 'submission.rescored');
    expect(created).toMatchObject({ data: { object: { id: submission.id, form_id: form.id } } });
    expect(schemaErrors('SubmissionCreatedEvent', created)).toEqual([]);
    expect(schemaErrors('SubmissionRescoredEvent', rescored)).toEqual([]);
    expect((await logsOf(api, integration.id)).every((log) => log.status === 'succeeded')).toBe(true);
  });

  it('when a form is deleted, then attempts still pending for its submissions are dropped, and attempts made stay logged', async () => {
    const { api, clock } = await setup();
    cleanup.push(() => api.close());
    const form = await createForm(api, demoForm());
    const integration = await createIntegration(api, { url: PUBLIC_URL, events: ['submission.created', 'form.deleted'], form_id: form.id });
    const sent = await submit(api, { form_id: form.id, answers: anaAnswers() });
    await workerFor(api, null, { transport: async () => ({ status: 200 }) }).runDue();
    clock.advance(1_000);
    const pending = await submit(api, { form_id: form.id, answers: anaAnswers() });
    clock.advance(1_000);
    await api.call('delete', `/v1/forms/${form.id}`).expect(200);
    const logs = await logsOf(api, integration.id);
    expect(logs.map((log) => [log.event_type, log.status])).toEqual([
      ['form.deleted', 'pending'],
      ['submission.created', 'succeeded'],
    ]);
    expect(sent.id).not.toBe(pending.id);
    const replay = await api.call('post', `/v1/integrations/${integration.id}/dispatch`).send({ event_id: logs[1]!.event_id });
    expect(replay.status).toBe(422);
  });
});

describe('retries', () => {
  it('when the endpoint answers 500 twice, then it is retried with backoff and the third attempt succeeds', async () => {
    const { api, clock } = await setup();
    const receiver = await startReceiver([500, 500, 204]);
    cleanup.push(
      () => receiver.close(),
      () => api.close(),
    );
    const integration = await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    await createForm(api, { name: 'Flaky' });
    const worker = workerFor(api, receiver);

    expect(await worker.runDue()).toBe(1);
    let logs = await logsOf(api, integration.id);
    expect(logs.map((log) => [log.attempt, log.status])).toEqual([
      [2, 'pending'],
      [1, 'failed'],
    ]);
    expect(logs[1]).toMatchObject({ response_status: 500, error: 'The endpoint answered 500.' });
    // Full jitter with random 0.5: half of the 5-minute ceiling after the first failure.
    expect(Date.parse(logs[1]!.next_attempt_at!) - Date.parse(START)).toBe(150_000);
    expect(logs[0]!.created_at).toBe(logs[1]!.next_attempt_at);

    expect(await worker.runDue()).toBe(0);
    clock.advance(149_000);
    expect(await worker.runDue()).toBe(0);
    clock.advance(1_000);
    expect(await worker.runDue()).toBe(1);
    logs = await logsOf(api, integration.id);
    // Half of the 10-minute ceiling after the second failure.
    expect(Date.parse(logs[1]!.next_attempt_at!) - clock.now().getTime()).toBe(300_000);

    clock.advance(300_000);
    expect(await worker.runDue()).toBe(1);
    logs = await logsOf(api, integration.id);
    expect(logs.map((log) => [log.attempt, log.status, log.response_status])).toEqual([
      [3, 'succeeded', 204],
      [2, 'failed', 500],
      [1, 'failed', 500],
    ]);
    expect(logs[0]!.next_attempt_at).toBeNull();
    const ids = new Set(receiver.received.map((request) => request.headers['x-service-event-id']));
    expect(ids.size).toBe(1);
    expect(new Set(receiver.received.map((request) => request.body)).size).toBe(1);
  });

  it('when every attempt fails, then 8 attempts are made and the last is failed with no next attempt', async () => {
    const { api, clock } = await setup();
    cleanup.push(() => api.close());
    const integration = await createIntegration(api, { url: PUBLIC_URL, events: ['form.created'] });
    await createForm(api, { name: 'Down' });
    const sent: WebhookRequest[] = [];
    const transport: WebhookTransport = async (request) => {
      sent.push(request);
      return { status: 503 };
    };
    const worker = workerFor(api, null, { transport, allowPrivateWebhookUrls: false, random: () => 0.999 });
    for (let round = 0; round < 20; round++) {
      await worker.runDue();
      clock.advance(7 * HOUR);
    }
    expect(sent).toHaveLength(MAX_ATTEMPTS);
    expect(sent[0]!.addresses).toEqual([{ address: '93.184.215.14', family: 4 }]);
    const logs = await logsOf(api, integration.id);
    expect(logs.map((log) => log.attempt)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
    expect(logs.every((log) => log.status === 'failed' && log.response_status === 503)).toBe(true);
    expect(logs[0]!.next_attempt_at).toBeNull();
    expect(logs.slice(1).every((log) => log.next_attempt_at !== null)).toBe(true);
    expect(await logsOf(api, integration.id, undefined, '?status=pending')).toEqual([]);
  });
});

describe('test mode', () => {
  it('when test-mode activity reaches integrations, then deliveries are recorded against the mock endpoint and no connection is opened', async () => {
    const { api } = await setup();
    cleanup.push(() => api.close());
    const test = api.workspace.test_admin_key;
    const sandbox = await createIntegration(api, { url: PUBLIC_URL, events: ['form.created'] }, test);
    const live = await createIntegration(api, { url: PUBLIC_URL, events: ['form.created'] });
    await createForm(api, { name: 'Sandbox form' }, test);
    const { calls, transport } = forbiddenTransport();
    let lookups = 0;
    const worker = workerFor(api, null, {
      transport,
      resolveHost: async (host) => {
        lookups++;
        return fakeResolver(host);
      },
    });
    expect(await worker.runDue()).toBe(2);
    expect(calls).toEqual([]);
    expect(lookups).toBe(0);
    for (const id of [sandbox.id, live.id]) {
      const logs = await logsOf(api, id, test);
      expect(logs).toEqual([
        expect.objectContaining({ status: 'succeeded', mock: true, test: true, url: PUBLIC_URL, attempt: 1, error: null }),
      ]);
      expect(schemaErrors('IntegrationLog', logs[0])).toEqual([]);
    }
    expect(await logsOf(api, live.id)).toEqual([]);
  });
});

describe('durability', () => {
  const databases: TestDatabase[] = [];
  const database = async () => {
    const created = await createStoreDatabase();
    databases.push(created);
    return created;
  };
  afterAll(async () => {
    for (const created of databases) await created.drop();
  });

  it('when the process stops with attempts pending, then a new worker on the same database sends them', async () => {
    const restarted = await database();
    const receiver = await startReceiver([200]);
    cleanup.push(() => receiver.close());
    const first = await setup(restarted);
    const integration = await createIntegration(first.api, { url: receiver.url, events: ['form.created'] });
    await createForm(first.api, { name: 'Survives restart' });
    await first.api.close();

    const store = await restarted.open();
    cleanup.push(() => store.close());
    const clock = testClock(START);
    const services = { store, now: clock.now, events: noEvents, webhookUrls: dnsWebhookUrlPolicy(true) };
    expect(await createDeliveryWorker(services, { transport: httpsTransport({ extraCa: receiver.cert }) }).runDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'form.created' });
    const logs = await store.integrations.listLogs(integration.id, 'live', {}, { limit: 10 });
    expect(logs.data).toEqual([expect.objectContaining({ status: 'succeeded', attempt: 1 })]);
  });

  it('when a worker dies holding a lease, then the attempt is made again once the lease runs out', async () => {
    const { api, clock } = await setup(await database());
    const receiver = await startReceiver([200]);
    cleanup.push(
      () => receiver.close(),
      () => api.close(),
    );
    await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    await createForm(api, { name: 'Leased' });
    const now = clock.now();
    const leased = await api.store.integrations.claimDue({
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + 60_000).toISOString(),
      limit: 10,
      perIntegration: 5,
      perWorkspace: 10,
    });
    expect(leased).toHaveLength(1);
    const worker = workerFor(api, receiver);
    expect(await worker.runDue()).toBe(0);
    clock.advance(60_000);
    expect(await worker.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(1);
  });
});

describe('stopping', () => {
  it('when stopped while a request is in flight, then stop waits for it to be answered and recorded', async () => {
    const { api } = await setup();
    const receiver = await startReceiver([200], { delayMs: 300 });
    cleanup.push(
      () => receiver.close(),
      () => api.close(),
    );
    const integration = await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    await createForm(api, { name: 'In flight' });
    const worker = startDeliveryWorker(api.services, { transport: httpsTransport({ extraCa: receiver.cert }), pollIntervalMs: 10 });
    // Stopped again by the cleanup should the poll fail: its interval would otherwise outlive the file in the worker.
    cleanup.push(() => worker.stop());
    await expect.poll(() => receiver.received.length, { timeout: 5_000, interval: 10 }).toBe(1);
    await worker.stop();
    expect(await logsOf(api, integration.id)).toEqual([expect.objectContaining({ status: 'succeeded', response_status: 200 })]);
  });
});
