/**
 * `npm run bench:webhooks`: how long one workspace's webhook waits while another workspace's endpoint hangs.
 * Not a test (nothing here passes or fails); it prints the figures and writes dist/bench-webhooks.json.
 *
 * Workspace A has HANGING_DELIVERIES (default 100) deliveries queued for an endpoint that accepts the
 * connection and never answers; then workspace B publishes one event for its healthy endpoint. The delivery
 * worker runs as the server runs it (polling, the real HTTPS transport over TLS to local receivers) and the
 * figure is the time from B's event to its arrival at B's receiver. It stops waiting after MAX_WAIT_S
 * (default 150 s).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import selfsigned from 'selfsigned';
import { httpsTransport } from '../../src/adapters/webhook-transport.js';
import { integrationEvents } from '../../src/domain/integrations/publisher.js';
import { startDeliveryWorker } from '../../src/domain/integrations/worker.js';
import type { Services } from '../../src/domain/services.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { newId } from '../../src/ids.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';

const HANGING_DELIVERIES = Number(process.env.HANGING_DELIVERIES ?? 100);
const MAX_WAIT_MS = Number(process.env.MAX_WAIT_S ?? 150) * 1000;
const log = (line: string) => process.stdout.write(`${line}\n`);

const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
  keyType: 'ec',
  algorithm: 'sha256',
  extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
});

async function listen(handler: RequestListener): Promise<{ url: string; server: https.Server }> {
  const server = https.createServer({ key: pems.private, cert: pems.cert }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server };
}

let arrived: (() => void) | null = null;
// Accepts the connection, reads the request, never answers.
const hanging = await listen(() => {});
const healthy = await listen((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200).end();
    arrived?.();
  });
});

const store = createSqliteStore(':memory:');
const services: Services = {
  store,
  now: () => new Date(),
  events: integrationEvents(),
  webhookUrls: { allowPrivateAddresses: true, resolveHost: async () => [] },
};

async function workspaceWithIntegration(name: string, url: string) {
  const { workspace_id: workspaceId } = await bootstrapWorkspace(services, { name, plan: 'business' });
  const at = services.now().toISOString();
  await store.integrations.create(
    {
      integration: {
        id: newId('int'),
        object: 'integration',
        type: 'webhook',
        url,
        events: ['form.created'],
        enabled: true,
        disabled_at: null,
        disabled_reason: null,
        description: null,
        form_id: null,
        secret_hint: 'whsec_…0000',
        previous_secret_expires_at: null,
        test: false,
        created_at: at,
        updated_at: at,
        metadata: {},
      },
      workspaceId,
      environment: 'live',
      signingSecret: 'whsec_00000000000000000000000000000000',
    },
    {
      workspaceId,
      environment: 'live',
      type: 'integration.created',
      actor: { type: 'system', id: null, name: null },
      target: { type: 'integration', id: 'int_bench', name: null },
      reason: null,
      at,
    },
  );
  return workspaceId;
}

/** A form.created event, stored as a change's outbox stores it. */
async function publish(workspaceId: string): Promise<void> {
  const entry = services.events.outboxEvent({
    workspaceId,
    environment: 'live',
    type: 'form.created',
    formId: null,
    data: { object: { object: 'form', id: newId('form') } },
  });
  if (entry) await store.integrations.publish(entry.event, entry.subscribers);
}

const a = await workspaceWithIntegration('A', hanging.url);
const b = await workspaceWithIntegration('B', healthy.url);
for (let i = 0; i < HANGING_DELIVERIES; i++) await publish(a);

const worker = startDeliveryWorker(services, { transport: httpsTransport({ extraCa: pems.cert }), pollIntervalMs: 100 });
// Let the worker take up A's queue first, as it would have before B's event arrived.
await new Promise((resolve) => setTimeout(resolve, 300));
const started = performance.now();
const delivered = new Promise<number>((resolve) => {
  arrived = () => resolve(performance.now() - started);
});
await publish(b);
let giveUp: NodeJS.Timeout | undefined;
const delayMs = await Promise.race([delivered, new Promise<null>((resolve) => (giveUp = setTimeout(() => resolve(null), MAX_WAIT_MS)))]);
clearTimeout(giveUp);

hanging.server.closeAllConnections();
hanging.server.close();
await worker.stop();
healthy.server.close();
store.close();

const result = {
  hanging_deliveries: HANGING_DELIVERIES,
  other_workspace_delay_ms: delayMs === null ? null : Math.round(delayMs),
  gave_up_after_ms: delayMs === null ? MAX_WAIT_MS : null,
  load_average_1m: loadavg()[0],
};
log(
  delayMs === null
    ? `workspace B's delivery had not arrived after ${MAX_WAIT_MS / 1000} s (A: ${HANGING_DELIVERIES} deliveries to a hanging endpoint)`
    : `workspace B's delivery arrived after ${(delayMs / 1000).toFixed(2)} s (A: ${HANGING_DELIVERIES} deliveries to a hanging endpoint)`,
);
const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
mkdirSync(dist, { recursive: true });
writeFileSync(`${dist}bench-webhooks.json`, `${JSON.stringify(result, null, 2)}\n`);
