/**
 * The delivery worker: leases the attempts that are due, sends each (or, in test mode, records it against the
 * mock endpoint without any connection), and records the outcome; a failed attempt queues the next one with
 * backoff until the 8th. The queue is the `deliveries` table, so a restarted worker carries on where the last
 * one stopped, and a crashed one's leased attempts are made again when their lease runs out.
 *
 * Attempts are independent: there is no batch to wait for. Each one that finishes makes room for the next,
 * within caps on the attempts in flight per integration, per workspace and in all, and workspaces take turns
 * at the free places (see `claimDue`). An endpoint that never answers so holds only its own integration's few
 * places for the 10 s timeout, and its circuit breaker (`circuit-breaker.ts`) soon holds its attempts back.
 */
import { performance } from 'node:perf_hooks';
import type { AttemptResult, CircuitUpdate, DueDelivery } from '../../store/integration-store.js';
import { signWebhookPayload } from '../../webhook-signature.js';
import type { Services } from '../services.js';
import { type CircuitPolicy, defaultCircuitPolicy, disabledNow, nextCircuitState } from './circuit-breaker.js';
import { DeliveryFailure, type WebhookTransport } from './delivery-transport.js';
import { type BackoffPolicy, DELIVERY_TIMEOUT_MS, defaultBackoff, retryDelayMs } from './retry-schedule.js';
import { checkWebhookUrl, type ResolvedAddress, type WebhookUrlPolicy } from './webhook-url.js';

export const USER_AGENT = 'Form-Funnel-Webhooks/1.0';

/** Attempts in flight at once. Per integration, so one endpoint cannot take every place; per workspace, so one tenant cannot. */
export interface DeliveryConcurrency {
  total: number;
  perWorkspace: number;
  perIntegration: number;
}

export const defaultConcurrency: DeliveryConcurrency = { total: 50, perWorkspace: 10, perIntegration: 5 };

export interface DeliveryWorkerOptions {
  /** How requests are sent: the HTTPS adapter (`src/adapters/webhook-transport.ts`) in the server, a fake in tests. */
  transport: WebhookTransport;
  /** Overrides `services.webhookUrls.allowPrivateAddresses` (ALLOW_PRIVATE_WEBHOOK_URLS). */
  allowPrivateWebhookUrls?: boolean | undefined;
  /** Overrides `services.webhookUrls.resolveHost`. */
  resolveHost?: ((hostname: string) => Promise<ResolvedAddress[]>) | undefined;
  backoff?: BackoffPolicy | undefined;
  circuit?: CircuitPolicy | undefined;
  concurrency?: DeliveryConcurrency | undefined;
  random?: (() => number) | undefined;
  /** Milliseconds for measuring durations; default `performance.now`. */
  monotonicMs?: (() => number) | undefined;
  /** How often to look for attempts that became due (a finished attempt also looks at once). */
  pollIntervalMs?: number | undefined;
  /** How long a leased attempt is withheld from other workers; longer than any attempt takes. */
  leaseMs?: number | undefined;
  onError?: ((error: unknown) => void) | undefined;
}

export interface DeliveryWorker {
  /** Makes every attempt due now, each as soon as there is room, and resolves with how many were made. */
  runDue(): Promise<number>;
  /** Stops leasing and waits for the attempts in flight to be sent and recorded. */
  stop(): Promise<void>;
}

type WorkerServices = Pick<Services, 'store' | 'now' | 'events' | 'webhookUrls'>;

export const createDeliveryWorker = (services: WorkerServices, options: DeliveryWorkerOptions): DeliveryWorker =>
  deliveryScheduler(services, options, false);

/** Starts polling for due attempts; `stop()` finishes the attempts in flight. */
export function startDeliveryWorker(services: WorkerServices, options: DeliveryWorkerOptions): { stop(): Promise<void> } {
  const scheduler = deliveryScheduler(services, options, true);
  const timer = setInterval(scheduler.fill, options.pollIntervalMs ?? 1000);
  scheduler.fill();
  return {
    async stop() {
      clearInterval(timer);
      await scheduler.stop();
    },
  };
}

/** `continuous`: a finished attempt leases the next at once (the running server); otherwise `runDue` drives it. */
function deliveryScheduler(services: WorkerServices, options: DeliveryWorkerOptions, continuous: boolean) {
  const policy: WebhookUrlPolicy = {
    allowPrivateAddresses: options.allowPrivateWebhookUrls ?? services.webhookUrls.allowPrivateAddresses,
    resolveHost: options.resolveHost ?? services.webhookUrls.resolveHost,
  };
  const { transport } = options;
  const backoff = options.backoff ?? defaultBackoff;
  const circuit = options.circuit ?? defaultCircuitPolicy;
  const concurrency = options.concurrency ?? defaultConcurrency;
  const random = options.random ?? Math.random;
  const monotonicMs = options.monotonicMs ?? (() => performance.now());
  const leaseMs = options.leaseMs ?? 6 * DELIVERY_TIMEOUT_MS;
  const onError =
    options.onError ??
    ((error: unknown) => process.emitWarning(`Webhook delivery failed: ${error instanceof Error ? error.message : String(error)}`));
  const store = services.store.integrations;

  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let claiming: Promise<number> | null = null;
  let claimAgain = false;

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
      'X-Service-Signature': signWebhookPayload(delivery.event.body, signingSecrets(delivery, services.now()), timestampSeconds),
      ...(delivery.event.synthetic ? { 'X-Service-Synthetic': 'true' } : {}),
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

  /**
   * Moves the integration's breaker with the attempt's outcome. When that disables it, `integration.disabled`
   * (to the workspace's other integrations that subscribe to it) is written in the same transaction.
   */
  const circuitUpdate = (outcome: AttemptResult['status']): CircuitUpdate => ({
    next: (current) => nextCircuitState(current, outcome, services.now(), circuit),
    outbox: ({ before, after, integration }) => {
      if (!disabledNow(before, after)) return {};
      const event = services.events.outboxEvent({
        workspaceId: integration.workspaceId,
        environment: integration.environment,
        type: 'integration.disabled',
        formId: integration.integration.form_id,
        data: { object: integration.integration },
      });
      return { events: event ? [event] : [] };
    },
  });

  async function deliver(delivery: DueDelivery): Promise<void> {
    try {
      const result = await attempt(delivery);
      // Mock attempts say nothing about the endpoint, so they leave the breaker alone.
      await store.recordAttempt(delivery.id, result, delivery.mock ? undefined : circuitUpdate(result.status));
    } catch (error) {
      // The lease runs out and the attempt is made again: deliveries are at least once.
      onError(error);
    }
  }

  function start(delivery: DueDelivery): void {
    const task: Promise<void> = deliver(delivery).finally(() => {
      inFlight.delete(task);
      if (continuous) fill();
    });
    inFlight.add(task);
  }

  /** Leases as many due attempts as there are free places, and starts them. */
  async function claimOnce(): Promise<number> {
    const free = concurrency.total - inFlight.size;
    if (stopping || free <= 0) return 0;
    const now = services.now();
    const due = await store.claimDue({
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
      limit: free,
      perIntegration: concurrency.perIntegration,
      perWorkspace: concurrency.perWorkspace,
    });
    for (const delivery of due) start(delivery);
    return due.length;
  }

  /**
   * One claim at a time, so that two never lease for the same free places; a call during a claim is answered by
   * one more claim after it (an attempt that finished meanwhile has made room).
   */
  function claim(): Promise<number> {
    if (claiming) {
      claimAgain = true;
      return claiming;
    }
    claiming = (async () => {
      let claimed = 0;
      do {
        claimAgain = false;
        claimed += await claimOnce();
      } while (claimAgain && !stopping);
      return claimed;
    })().finally(() => {
      claiming = null;
    });
    return claiming;
  }

  function fill(): void {
    claim().catch(onError);
  }

  return {
    fill,
    async runDue(): Promise<number> {
      let made = 0;
      for (;;) {
        made += await claim();
        if (inFlight.size === 0 || stopping) break;
        await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
      return made;
    },
    async stop(): Promise<void> {
      stopping = true;
      await claiming?.catch(() => {});
      await Promise.all(inFlight);
    },
  };
}

/**
 * The secrets that sign a delivery made at `now`: the current one first, then the one a rotation replaced while
 * its overlap lasts. Decided when signing, so a secret stops signing the moment it expires, whether or not the
 * purge has cleared it yet.
 */
export function signingSecrets(delivery: DueDelivery, now: Date): string[] {
  const { signingSecret, previousSecret } = delivery.integration;
  return previousSecret && Date.parse(previousSecret.expiresAt) > now.getTime() ? [signingSecret, previousSecret.secret] : [signingSecret];
}
