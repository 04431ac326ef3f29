/**
 * The delivery worker: leases the attempts that are due, sends each (or, in test mode, records it against the
 * mock endpoint without any connection), and records the outcome; a failed attempt queues the next one with
 * backoff until the 8th. The queue is the `deliveries` table, so a restarted worker carries on where the last
 * one stopped, and a crashed one's leased attempts are made again when their lease runs out.
 */
import { performance } from 'node:perf_hooks';
import type { AttemptResult, DueDelivery } from '../../store/integration-store.js';
import { signWebhookPayload } from '../../webhook-signature.js';
import type { Services } from '../services.js';
import { DeliveryFailure, type WebhookTransport } from './delivery-transport.js';
import { type BackoffPolicy, DELIVERY_TIMEOUT_MS, defaultBackoff, retryDelayMs } from './retry-schedule.js';
import { checkWebhookUrl, type ResolvedAddress, type WebhookUrlPolicy } from './webhook-url.js';

export const USER_AGENT = 'Form-Funnel-Webhooks/1.0';

export interface DeliveryWorkerOptions {
  /** How requests are sent: the HTTPS adapter (`src/adapters/webhook-transport.ts`) in the server, a fake in tests. */
  transport: WebhookTransport;
  /** Overrides `services.webhookUrls.allowPrivateAddresses` (ALLOW_PRIVATE_WEBHOOK_URLS). */
  allowPrivateWebhookUrls?: boolean | undefined;
  /** Overrides `services.webhookUrls.resolveHost`. */
  resolveHost?: ((hostname: string) => Promise<ResolvedAddress[]>) | undefined;
  backoff?: BackoffPolicy | undefined;
  random?: (() => number) | undefined;
  /** Milliseconds for measuring durations; default `performance.now`. */
  monotonicMs?: (() => number) | undefined;
  pollIntervalMs?: number | undefined;
  /** Attempts leased and sent at once. */
  batchSize?: number | undefined;
  /** How long a leased attempt is withheld from other workers; longer than any attempt takes. */
  leaseMs?: number | undefined;
  onError?: ((error: unknown) => void) | undefined;
}

export interface DeliveryWorker {
  /** Sends every attempt due now (batch after batch); resolves with how many were made. */
  runDue(): Promise<number>;
  /** Stops polling and waits for the attempts in flight to be sent and recorded. */
  stop(): Promise<void>;
}

export function createDeliveryWorker(
  services: Pick<Services, 'store' | 'now' | 'webhookUrls'>,
  options: DeliveryWorkerOptions,
): DeliveryWorker {
  const policy: WebhookUrlPolicy = {
    allowPrivateAddresses: options.allowPrivateWebhookUrls ?? services.webhookUrls.allowPrivateAddresses,
    resolveHost: options.resolveHost ?? services.webhookUrls.resolveHost,
  };
  const { transport } = options;
  const backoff = options.backoff ?? defaultBackoff;
  const random = options.random ?? Math.random;
  const monotonicMs = options.monotonicMs ?? (() => performance.now());
  const batchSize = options.batchSize ?? 10;
  const leaseMs = options.leaseMs ?? 6 * DELIVERY_TIMEOUT_MS;
  const store = services.store.integrations;

  let stopping = false;
  let running: Promise<number> | null = null;

  async function attempt(delivery: DueDelivery): Promise<AttemptResult> {
    const url = delivery.integration.url;
    const outcome = (fields: Omit<AttemptResult, 'url' | 'nextAttemptAt'>): AttemptResult => {
      if (fields.status === 'succeeded') return { ...fields, url, nextAttemptAt: null };
      const delay = retryDelayMs(delivery.attempt, backoff, random);
      return { ...fields, url, nextAttemptAt: delay === null ? null : new Date(services.now().getTime() + delay).toISOString() };
    };
    // Test mode: the mock endpoint "answers" 200; no connection is opened.
    if (delivery.mock) return outcome({ status: 'succeeded', responseStatus: 200, durationMs: 0, error: null });
    const verdict = await checkWebhookUrl(url, policy);
    if (!verdict.ok) {
      return outcome({
        status: 'failed',
        responseStatus: null,
        durationMs: null,
        error: `Not sent: the URL must be public https (${verdict.reason}).`,
      });
    }
    const timestampSeconds = Math.floor(services.now().getTime() / 1000);
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      'X-Service-Event-Id': delivery.event.id,
      'X-Service-Event-Type': delivery.event.type,
      'X-Service-Signature': signWebhookPayload(delivery.event.body, delivery.integration.signingSecret, timestampSeconds),
    };
    const started = monotonicMs();
    const elapsed = () => Math.min(DELIVERY_TIMEOUT_MS, Math.max(0, Math.round(monotonicMs() - started)));
    try {
      const response = await transport({
        url,
        headers,
        body: delivery.event.body,
        addresses: verdict.addresses,
        timeoutMs: DELIVERY_TIMEOUT_MS,
      });
      const durationMs = elapsed();
      if (response.status >= 200 && response.status < 300)
        return outcome({ status: 'succeeded', responseStatus: response.status, durationMs, error: null });
      const responseStatus = response.status >= 100 && response.status <= 599 ? response.status : null;
      return outcome({ status: 'failed', responseStatus, durationMs, error: `The endpoint answered ${response.status}.` });
    } catch (error) {
      return outcome({
        status: 'failed',
        responseStatus: null,
        durationMs: elapsed(),
        error: error instanceof DeliveryFailure ? error.message : 'The request failed.',
      });
    }
  }

  async function deliver(delivery: DueDelivery): Promise<void> {
    try {
      await store.recordAttempt(delivery.id, await attempt(delivery));
    } catch (error) {
      // The lease runs out and the attempt is made again: deliveries are at least once.
      options.onError?.(error);
    }
  }

  async function drain(): Promise<number> {
    let made = 0;
    while (!stopping) {
      const now = services.now();
      const due = await store.claimDue(now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), batchSize);
      await Promise.all(due.map(deliver));
      made += due.length;
      if (due.length < batchSize) break;
    }
    return made;
  }

  const runDue = (): Promise<number> => {
    running ??= drain().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    runDue,
    async stop() {
      stopping = true;
      await running;
    },
  };
}

/** Starts polling for due attempts; `stop()` finishes the attempts in flight. */
export function startDeliveryWorker(
  services: Pick<Services, 'store' | 'now' | 'webhookUrls'>,
  options: DeliveryWorkerOptions,
): { stop(): Promise<void> } {
  const worker = createDeliveryWorker(services, options);
  const onError =
    options.onError ??
    ((error: unknown) => process.emitWarning(`Webhook delivery failed: ${error instanceof Error ? error.message : String(error)}`));
  const timer = setInterval(() => void worker.runDue().catch(onError), options.pollIntervalMs ?? 1000);
  return {
    async stop() {
      clearInterval(timer);
      await worker.stop();
    },
  };
}
