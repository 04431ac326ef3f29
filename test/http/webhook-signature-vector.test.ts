/**
 * The signature the delivery worker sends, against a fixed vector: secret, timestamp and body chosen here, the
 * expected header computed outside this code base (`printf '%s' '<t>.<body>' | openssl dgst -sha256 -hmac <secret>`).
 * Tests that verify a delivery with the client's verifier share the signing code with the server, so a change to
 * the scheme on both sides (a missing dot, the body re-encoded, another hash) would pass them; it fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRequest } from '../../src/domain/integrations/delivery-transport.js';
import { createDeliveryWorker } from '../../src/domain/integrations/worker.js';
import { signWebhookPayload } from '../../src/webhook-signature.js';
import { audit, event, integration } from '../store/conformance/fixtures.js';
import { PUBLIC_URL } from '../support/factories.js';
import { createTestApi, type TestApi } from '../support/harness.js';
import { testWebhookUrls } from './integrations-support.js';

const secret = 'whsec_fixedvectorsecret0123456789';
const body = '{"id":"evt_fixedvector0000000000","object":"event","data":{"note":"é ✓"}}';
const timestamp = 1_767_225_600; // 2026-01-01T00:00:00Z
const expected = 't=1767225600,v1=9c25c3533c71c8f8f6927c644ce30ef85e5ffa5c8f0f93728218f3280ab30091';

describe('the X-Service-Signature a delivery carries', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi({ now: () => new Date(timestamp * 1000), webhookUrls: testWebhookUrls() });
  });
  afterAll(async () => {
    await api.close();
  });

  it('when the worker sends an event, then the header is exactly the fixed vector for its secret, time and raw body', async () => {
    const workspaceId = api.workspace.workspace_id;
    await api.store.integrations.create(
      { integration: { ...integration(), url: PUBLIC_URL }, workspaceId, environment: 'live', signingSecret: secret },
      audit(workspaceId, 'integration.created'),
    );
    await api.store.integrations.publish(
      { ...event(workspaceId), id: 'evt_fixedvector0000000000', body, createdAt: '2025-12-31T23:59:00.000Z' },
      { environments: ['live'], mock: false },
    );
    const sent: WebhookRequest[] = [];
    const transport = async (request: WebhookRequest) => {
      sent.push(request);
      return { status: 200 };
    };

    await createDeliveryWorker(api.services, { transport }).runDue();

    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toBe(body);
    expect(sent[0]!.headers['X-Service-Signature']).toBe(expected);
  });

  it('when the signing function is given the vector, then it answers the same header', () => {
    expect(signWebhookPayload(body, secret, timestamp)).toBe(expected);
    expect(signWebhookPayload(Buffer.from(body, 'utf8'), secret, timestamp)).toBe(expected);
  });
});
