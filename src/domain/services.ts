import type { Schema } from '../contract.js';
import type { IdempotentResponse } from '../store/outbox.js';
import type { SearchScan } from '../store/search-scan.js';
import type { Store, WorkspaceRateLimits } from '../store/types.js';
import type { ChallengeSecrets } from './challenges/proof-of-work.js';
import type { ConcurrencyLimits } from './concurrency-slots.js';
import type { EventPublisher } from './events.js';
import type { WebhookUrlPolicy } from './integrations/webhook-url.js';
import type { ApiRequestMeter } from './usage/meter.js';

/** What domain operations depend on; tests pass their own clock, store and resolver. */
export interface Services {
  store: Store;
  now(): Date;
  events: EventPublisher;
  /** Which webhook URLs are accepted (on create and update, and again before every delivery) and how hosts resolve. */
  webhookUrls: WebhookUrlPolicy;
  /** The rate limits of a workspace without limits of its own, as configured (the app sets them; the document's by default). */
  standardRateLimits?: WorkspaceRateLimits | undefined;
  /** How `q` reads the submissions list (window and cap); the document's `defaultSearchScan` unless a test sets smaller ones. */
  searchScan?: SearchScan | undefined;
  /** Bounds on exports and `q` scans in progress, and the stall timeout of streamed responses (`defaultConcurrency` when absent). */
  concurrency?: ConcurrencyLimits | undefined;
  /** The secrets proof-of-work challenges are signed with (`POST /public/challenges`); the app always sets them. */
  challengeSecrets?: ChallengeSecrets | undefined;
  /** Counts live API requests for usage; absent where nothing is metered (operator commands). */
  apiRequests?: ApiRequestMeter | undefined;
  /**
   * Set for one request by a caller that holds an Idempotency-Key: the response it will give for what the use
   * case returns, sealed for replay. Use cases pass it to their change's outbox (`outboxOf`), so the key is
   * answered in the same transaction as the change it made.
   */
  idempotentResponse?: ((returned: unknown) => IdempotentResponse) | undefined;
  /**
   * The `data` a synthetic sample of each event type carries (dispatch with `type`): the app reads it from the
   * examples of the document's webhooks. Absent where nothing dispatches (operator commands, workers).
   */
  eventSamples?: ReadonlyMap<Schema<'EventType'>, Record<string, unknown>> | undefined;
  /**
   * Where respondents reach the service, as configured (`PUBLIC_BASE_URL`): hosted forms' URLs start with it, and the
   * hosted pages' key allows its origin only. Absent where none is configured.
   */
  publicBaseUrl?: string | undefined;
  /**
   * Where none is configured, the address hosted forms' URLs start with instead: the server's own
   * (`https://localhost:{port}`), known only once it listens, so asked each time.
   */
  localBaseUrl?: (() => string) | undefined;
  /**
   * Asks the mail sender to send what was just queued (invitations, sign-in links) without waiting for its timer;
   * absent where no sender runs in the process (operator commands: a running server sends their mail).
   */
  nudgeMail?: (() => void) | undefined;
}

/** The service's public base URL; a local one where none is configured (tests, operator commands). */
export const publicBaseUrlOf = (services: Pick<Services, 'publicBaseUrl' | 'localBaseUrl'>): string =>
  services.publicBaseUrl ?? services.localBaseUrl?.() ?? 'https://localhost';

export const timestamp = (services: Pick<Services, 'now'>): string => services.now().toISOString();
