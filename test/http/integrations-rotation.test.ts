/**
 * Rotating an integration's signing secret: the new secret is shown once, the replaced one signs beside it
 * (second `v1=`) until it expires, the partner's verification helper accepts either, and the rotation is
 * audited without the secret. Deliveries go to a local HTTPS receiver; the clock is moved by hand.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpsTransport } from '../../src/adapters/webhook-transport.js';
import { verifyWebhookSignature, WebhookSignatureError } from '../../src/client/webhooks.js';
import { purgeExpiredSigningSecrets } from '../../src/domain/integrations/service.js';
import { createDeliveryWorker } from '../../src/domain/integrations/worker.js';
import { webhookSignatureHex } from '../../src/webhook-signature.js';
import { createForm, createIntegration } from '../support/factories.js';
import { expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { type ReceivedRequest, startReceiver, testClock, testWebhookUrls } from './integrations-support.js';

const clock = testClock('2026-11-04T10:00:00.000Z');
// Loopback is allowed, as the operator's ALLOW_PRIVATE_WEBHOOK_URLS does for local testing.
const api = useWatchedApi(() => ({ webhookUrls: testWebhookUrls(true), now: clock.now, rateLimits: generousLimits }));

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver([200]);
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(() => clock.advance(3600_000));

const rotate = (id: string, body?: object, key = api.workspace.live_admin_key) => {
  const request = api.call('post', `/v1/integrations/${id}/rotate_secret`, key);
  return body === undefined ? request : request.send(body);
};

/** Creates a form (a form.created event for every subscriber) and has the worker deliver what is due; returns the request received. */
async function deliverOne(): Promise<ReceivedRequest> {
  const before = receiver.received.length;
  await createForm(api);
  const worker = createDeliveryWorker(api.services, { transport: httpsTransport({ extraCa: receiver.cert }), random: () => 0.5 });
  expect(await worker.runDue()).toBe(1);
  expect(receiver.received).toHaveLength(before + 1);
  return receiver.received[before]!;
}

const signatureOf = (request: ReceivedRequest) => request.headers['x-service-signature'] as string;
const v1Values = (header: string) => header.split(',').filter((part) => part.startsWith('v1='));
const verifies = (request: ReceivedRequest, secret: string) => {
  try {
    verifyWebhookSignature(request.body, signatureOf(request), secret, { now: clock.seconds() });
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    return false;
  }
};

/** The only integration receiving deliveries: earlier tests' integrations are paused. */
async function soleIntegration() {
  const existing = await api.call('get', '/v1/integrations?limit=100');
  for (const { id } of existing.body.data as Array<{ id: string }>)
    await api.call('patch', `/v1/integrations/${id}`).send({ enabled: false });
  return createIntegration(api, { url: receiver.url, events: ['form.created'] });
}

describe('POST /v1/integrations/{id}/rotate_secret', () => {
  it('when rotated without a body, then 200 with a new secret shown once, a new hint, and the old secret valid for 24 hours', async () => {
    const integration = await createIntegration(api, {});
    const res = await rotate(integration.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.signing_secret).toMatch(/^whsec_[0-9A-Za-z]{32,64}$/);
    expect(res.body.signing_secret).not.toBe(integration.signing_secret);
    expect(res.body.secret_hint).toBe(`whsec_…${res.body.signing_secret.slice(-4)}`);
    expect(res.body.previous_secret_expires_at).toBe(new Date(clock.now().getTime() + 86_400_000).toISOString());
    expect(res.body).toMatchObject({ id: integration.id, url: integration.url, updated_at: clock.now().toISOString() });

    const again = await api.call('get', `/v1/integrations/${integration.id}`);
    expect(again.body.signing_secret).toBeUndefined();
    expect(JSON.stringify(again.body)).not.toContain(res.body.signing_secret);
    expect(again.body.secret_hint).toBe(res.body.secret_hint);
    expect(again.body.previous_secret_expires_at).toBe(res.body.previous_secret_expires_at);
    expect(integration.previous_secret_expires_at).toBeNull();
  });

  it('when rotated, then the response carries the ETag a GET shows, and an If-Match with it updates the integration', async () => {
    const integration = await createIntegration(api, {});
    const before = await api.call('get', `/v1/integrations/${integration.id}`);
    const res = await rotate(integration.id, { expire_previous_after: 600 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    expect(res.headers.etag).not.toBe(before.headers.etag);
    expect((await api.call('get', `/v1/integrations/${integration.id}`)).headers.etag).toBe(res.headers.etag);

    const updated = await api
      .call('patch', `/v1/integrations/${integration.id}`)
      .set('If-Match', res.headers.etag!)
      .send({ enabled: false });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const stale = await api
      .call('patch', `/v1/integrations/${integration.id}`)
      .set('If-Match', before.headers.etag!)
      .send({ enabled: true });
    expectProblem(stale, 412, 'conflict_error', 'precondition_failed');
  });

  it('during the overlap, then every delivery carries two v1 signatures, the new one first, and either secret verifies it', async () => {
    const integration = await soleIntegration();
    const rotated = await rotate(integration.id, { expire_previous_after: 3600 });
    const request = await deliverOne();
    const values = v1Values(signatureOf(request));
    expect(values).toHaveLength(2);
    const t = Number(/^t=(\d+)/.exec(signatureOf(request))![1]);
    expect(values[0]).toBe(`v1=${webhookSignatureHex(rotated.body.signing_secret, t, request.body)}`);
    expect(values[1]).toBe(`v1=${webhookSignatureHex(integration.signing_secret, t, request.body)}`);
    expect(verifies(request, rotated.body.signing_secret)).toBe(true);
    expect(verifies(request, integration.signing_secret)).toBe(true);
    expect(verifies(request, `whsec_${'x'.repeat(32)}`)).toBe(false);
  });

  it('when the overlap has passed, then only the new secret signs, and the purge forgets the old one', async () => {
    const integration = await soleIntegration();
    const rotated = await rotate(integration.id, { expire_previous_after: 60 });
    clock.advance(60_000);
    const request = await deliverOne();
    expect(v1Values(signatureOf(request))).toHaveLength(1);
    expect(verifies(request, rotated.body.signing_secret)).toBe(true);
    expect(verifies(request, integration.signing_secret)).toBe(false);

    expect(await purgeExpiredSigningSecrets(api.services)).toBeGreaterThanOrEqual(1);
    expect((await api.call('get', `/v1/integrations/${integration.id}`)).body.previous_secret_expires_at).toBeNull();
    const rows = await api.rows(
      'SELECT previous_signing_secret, previous_secret_expires_at FROM integrations WHERE id = ?',
      integration.id,
    );
    expect(rows).toEqual([{ previous_signing_secret: null, previous_secret_expires_at: null }]);
  });

  it('when expire_previous_after is 0, then the old secret is retired at once: only the new one signs', async () => {
    const integration = await soleIntegration();
    const rotated = await rotate(integration.id, { expire_previous_after: 0 });
    expect(rotated.body.previous_secret_expires_at).toBeNull();
    const request = await deliverOne();
    expect(v1Values(signatureOf(request))).toHaveLength(1);
    expect(verifies(request, rotated.body.signing_secret)).toBe(true);
    expect(verifies(request, integration.signing_secret)).toBe(false);
  });

  it('when rotated again during an overlap, then the oldest secret is dropped at once and the two newest sign', async () => {
    const integration = await soleIntegration();
    const second = await rotate(integration.id, { expire_previous_after: 3600 });
    const third = await rotate(integration.id, { expire_previous_after: 3600 });
    const request = await deliverOne();
    expect(v1Values(signatureOf(request))).toHaveLength(2);
    expect(verifies(request, third.body.signing_secret)).toBe(true);
    expect(verifies(request, second.body.signing_secret)).toBe(true);
    expect(verifies(request, integration.signing_secret)).toBe(false);
  });

  it('when the same Idempotency-Key is sent again, then the first response is replayed and the secret is not rotated twice', async () => {
    const integration = await createIntegration(api, {});
    const send = () => rotate(integration.id).set('Idempotency-Key', `rotate-${integration.id}`).send({});
    const [first, second] = [await send(), await send()];
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.signing_secret).toBe(first.body.signing_secret);
    const log = await api.call('get', '/v1/audit_events?type=integration.secret_rotated&limit=100');
    expect(log.body.data.filter((entry: { target: { id: string } }) => entry.target.id === integration.id)).toHaveLength(1);
  });

  it('when expire_previous_after is out of range or unknown fields are sent, then 400 and nothing changes', async () => {
    const integration = await createIntegration(api, {});
    for (const body of [
      { expire_previous_after: 604_801 },
      { expire_previous_after: -1 },
      { expire_previous_after: 1.5 },
      { secret: 'x' },
    ]) {
      expectProblem(await rotate(integration.id, body), 400, 'validation_error', 'invalid_parameters');
    }
    expect((await rotate(integration.id, { expire_previous_after: 604_800 })).status).toBe(200);
  });

  it('when the key may not rotate, then 403 insufficient_scope (read key) or live_resource (test key on a live integration), and 404 for an unknown one', async () => {
    const integration = await createIntegration(api, {});
    const reader = await api.createKey({ environment: 'live', scope: 'read' });
    expectProblem(await rotate(integration.id, {}, reader.secret), 403, 'permission_error', 'insufficient_scope');
    expectProblem(await rotate(integration.id, {}, api.workspace.test_admin_key), 403, 'permission_error', 'live_resource');
    expectProblem(await rotate(`int_${'A'.repeat(24)}`, {}), 404, 'not_found', 'resource_not_found');
    const other = await api.otherWorkspace();
    expectProblem(await rotate(integration.id, {}, other.live_admin_key), 404, 'not_found', 'resource_not_found');
  });
});

describe('the audit log of integrations', () => {
  it('when an integration is created, updated, rotated and deleted, then each leaves an audit event naming it, never its secret', async () => {
    const integration = await createIntegration(api, { url: 'https://hooks.example.com/audited', events: ['form.created'] });
    // A second apart each, so that the log's order (newest first) is the order of the changes.
    clock.advance(1000);
    await api.call('patch', `/v1/integrations/${integration.id}`).send({ events: ['form.created', 'form.deleted'], description: 'CRM' });
    clock.advance(1000);
    const rotated = await rotate(integration.id, { expire_previous_after: 3600 });
    clock.advance(1000);
    await api.call('delete', `/v1/integrations/${integration.id}`);

    const log = await api.call('get', '/v1/audit_events?limit=100');
    const entries = (log.body.data as Array<{ type: string; target: { id: string }; reason: string | null }>).filter(
      (entry) => entry.target.id === integration.id,
    );
    expect(entries.map((entry) => entry.type)).toEqual([
      'integration.deleted',
      'integration.secret_rotated',
      'integration.updated',
      'integration.created',
    ]);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        object: 'audit_event',
        environment: 'live',
        actor: { type: 'api_key' },
        target: { type: 'integration', id: integration.id, name: 'hooks.example.com' },
      });
    }
    expect(entries[1]!.reason).toBe(`previous secret valid until ${rotated.body.previous_secret_expires_at}`);
    expect(entries[2]!.reason).toBe('changed: events, description');
    const text = JSON.stringify(log.body);
    expect(text).not.toContain(integration.signing_secret);
    expect(text).not.toContain(rotated.body.signing_secret);
  });

  it('when an update changes nothing, then no audit event is written', async () => {
    const integration = await createIntegration(api, {});
    await api.call('patch', `/v1/integrations/${integration.id}`).send({ enabled: true });
    const log = await api.call('get', '/v1/audit_events?type=integration.updated&limit=100');
    expect(log.body.data.filter((entry: { target: { id: string } }) => entry.target.id === integration.id)).toEqual([]);
  });
});
