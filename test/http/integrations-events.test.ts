/**
 * The events partners need beyond creation: `submission.deleted` and `submission.erased` (ids only, so deletion and
 * erasure reach a CRM's copies), and synthetic samples of any event type sent by dispatch with `type`, marked in the
 * body and a header, signed like every delivery, logged, and creating no data. Deliveries go to a local HTTPS
 * receiver and are checked against the webhook schemas of the bundled document.
 */

import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { httpsTransport } from '../../src/adapters/webhook-transport.js';
import { verifyWebhookSignature } from '../../src/client/webhooks.js';
import type { Schema } from '../../src/contract.js';
import { createDeliveryWorker } from '../../src/domain/integrations/worker.js';
import { bundledDocumentPath } from '../../src/http/contract-document.js';
import { createForm, createIntegration, type Integration, logsOf, submit } from '../support/factories.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { createTestStore } from '../support/stores.js';
import { schemaErrors, startReceiver, testClock, testWebhookUrls } from './integrations-support.js';
import { anaAnswers, demoForm } from './submissions-support.js';

type EventType = Schema<'EventType'>;
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const START = '2026-11-04T10:00:00.000Z';
const eventTypes = (JSON.parse(readFileSync(bundledDocumentPath, 'utf8')).components.schemas.EventType.enum as EventType[]).slice();
/** `submission.completed` → `SubmissionCompletedEvent`, the webhook's schema. */
const schemaOf = (type: EventType) =>
  `${type
    .split('.')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')}Event`;

let api: TestApi;
let clock: ReturnType<typeof testClock>;
let receiver: Receiver;
// Each test on an app of its own, so that no integration of another test receives its events.
beforeEach(async () => {
  clock = testClock(START);
  api = await createTestApi({ store: await createTestStore(), now: clock.now, webhookUrls: testWebhookUrls(true) });
  receiver = await startReceiver([200]);
});
afterEach(async () => {
  await receiver.close();
  await api.close();
});

/** Runs the worker and returns what the receiver got meanwhile, parsed, with its headers. */
async function delivered() {
  const before = receiver.received.length;
  await createDeliveryWorker(api.services, { transport: httpsTransport({ extraCa: receiver.cert }), random: () => 0.5 }).runDue();
  return receiver.received.slice(before).map((request) => ({ request, event: JSON.parse(request.body) }));
}

const dispatch = (integration: Integration, body: unknown, key = api.workspace.live_admin_key) =>
  api.call('post', `/v1/integrations/${integration.id}/dispatch`, key).send(body as object);

const count = async (path: string) => ((await api.call('get', path).expect(200)).body as { data: unknown[] }).data.length;

describe('POST /v1/integrations/{id}/dispatch with a type', () => {
  it('when every event type is dispatched, then each arrives as a signed, marked sample matching its webhook schema, and no data is created', async () => {
    const integration = await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    const [forms, submissions] = [await count('/v1/forms'), await count('/v1/submissions')];
    for (const type of eventTypes) await dispatch(integration, { type }).expect(202);
    const received = await delivered();

    expect(received.map(({ event }) => event.type)).toEqual(expect.arrayContaining(eventTypes));
    expect(received).toHaveLength(eventTypes.length);
    for (const { request, event } of received) {
      expect(event, event.type).toMatchObject({ object: 'event', synthetic: true, test: false, created_at: START });
      expect(request.headers['x-service-synthetic']).toBe('true');
      expect(request.headers['x-service-event-type']).toBe(event.type);
      expect(request.headers['x-service-event-id']).toBe(event.id);
      const signature = request.headers['x-service-signature'] as string;
      expect(verifyWebhookSignature(request.body, signature, integration.signing_secret, { now: clock.seconds() })).toEqual(event);
      expect(schemaErrors(schemaOf(event.type), event), event.type).toEqual([]);
    }
    expect(await count('/v1/forms')).toBe(forms);
    expect(await count('/v1/submissions')).toBe(submissions);
    const logs = await logsOf(api, integration.id);
    expect(logs).toHaveLength(eventTypes.length);
    expect(logs.every((log) => log.status === 'succeeded' && log.mock === false)).toBe(true);
  });

  it('when a sample is sent to an integration limited to a form, then it names that form, and the events feed marks it', async () => {
    const form = await createForm(api, demoForm());
    const integration = await createIntegration(api, { url: receiver.url, events: ['submission.completed'], form_id: form.id });
    const res = await dispatch(integration, { type: 'submission.completed' }).expect(202);
    const { event } = (await delivered())[0]!;
    expect(event).toMatchObject({ id: res.body.event_id, type: 'submission.completed', data: { object: { form_id: form.id } } });
    const feed = await api.call('get', `/v1/events/${res.body.event_id}`).expect(200);
    expect(feed.body).toMatchObject({ id: event.id, synthetic: true });
  });

  it('when a test key dispatches a sample, then it is recorded against the mock endpoint, marked test, and nothing is sent', async () => {
    const integration = await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    const res = await dispatch(integration, { type: 'submission.deleted' }, api.workspace.test_admin_key).expect(202);
    expect(res.body).toMatchObject({ event_type: 'submission.deleted', mock: true, test: true, status: 'pending' });
    expect(await delivered()).toEqual([]);
    const event = await api.call('get', `/v1/events/${res.body.event_id}`, api.workspace.test_admin_key).expect(200);
    expect(event.body).toMatchObject({ type: 'submission.deleted', test: true, synthetic: true });
  });

  it('when both a type and an event id are sent, or an unknown type, then 400 and nothing is queued', async () => {
    const integration = await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    const ping = await dispatch(integration, {}).expect(202);
    const both = await dispatch(integration, { type: 'form.created', event_id: ping.body.event_id });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ type: 'validation_error', code: 'invalid_parameters' });
    expect((await dispatch(integration, { type: 'form.exploded' })).status).toBe(400);
    expect(await logsOf(api, integration.id)).toHaveLength(1);
    await delivered();
  });

  it('when real activity is delivered, then it carries neither the synthetic member nor the header', async () => {
    await createIntegration(api, { url: receiver.url, events: ['form.created'] });
    await createForm(api, { name: 'Real' });
    const { request, event } = (await delivered())[0]!;
    expect(event.type).toBe('form.created');
    expect(event).not.toHaveProperty('synthetic');
    expect(request.headers).not.toHaveProperty('x-service-synthetic');
  });
});

describe('submission.deleted and submission.erased', () => {
  it('when a submission is deleted, then submission.deleted carries its ids and no answers', async () => {
    const form = await createForm(api, demoForm());
    await createIntegration(api, { url: receiver.url, events: ['submission.deleted'] });
    const submission = await submit(api, { form_id: form.id, answers: anaAnswers() });
    await api.call('delete', `/v1/submissions/${submission.id}`).expect(200);
    const { event } = (await delivered())[0]!;
    expect(event).toMatchObject({
      type: 'submission.deleted',
      data: { object: { id: submission.id, object: 'submission', form_id: form.id, deleted: true, deleted_at: START } },
    });
    expect(Object.keys(event.data.object).sort()).toEqual(['deleted', 'deleted_at', 'form_id', 'id', 'object']);
    expect(schemaErrors('SubmissionDeletedEvent', event)).toEqual([]);
    const feed = await api.call('get', '/v1/events?type=submission.deleted').expect(200);
    expect(feed.body.data[0]).toMatchObject({ id: event.id });
  });

  it('when a person is erased from two forms, then one submission.erased per form lists the ids and count, never the address', async () => {
    const [first, second] = [await createForm(api, demoForm()), await createForm(api, demoForm())];
    const limited = await createIntegration(api, { url: receiver.url, events: ['submission.erased'], form_id: second.id });
    await createIntegration(api, { url: receiver.url, events: ['submission.erased'] });
    const answers = { ...anaAnswers(), email: 'gil.moss@example.org' };
    const inFirst = await submit(api, { form_id: first.id, answers });
    const inSecond = [await submit(api, { form_id: second.id, answers }), await submit(api, { form_id: second.id, answers })];
    await api.call('post', '/v1/submissions/erase').send({ email: 'gil.moss@example.org' }).expect(200);

    const received = await delivered();
    expect(received).toHaveLength(3);
    for (const { request, event } of received) {
      expect(request.body).not.toContain('gil.moss');
      expect(schemaErrors('SubmissionErasedEvent', event)).toEqual([]);
      expect(event.data.object.erased_at).toBe(START);
    }
    const objects = received.map(({ event }) => event.data.object);
    expect(objects).toContainEqual(expect.objectContaining({ form_id: first.id, submission_ids: [inFirst.id], count: 1 }));
    const secondIds = inSecond.map((submission) => submission.id).sort();
    expect(objects).toContainEqual(expect.objectContaining({ form_id: second.id, submission_ids: secondIds, count: 2 }));
    // The integration limited to the second form received that form's event only.
    expect((await logsOf(api, limited.id)).map((log) => log.event_type)).toEqual(['submission.erased']);
  });
});
