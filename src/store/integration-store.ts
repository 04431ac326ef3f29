/** Persistence of integrations, the events sent to them and their deliveries (the integration log). */
import type { Attachment, Environment, Schema } from '../contract.js';
import type { AuditEventInput } from './audit-event-input.js';
import type { EventRecord, Outbox, Subscribers } from './outbox.js';
import type { Page, PageRequest } from './page.js';

export type { EventRecord, Subscribers } from './outbox.js';

type Integration = Schema<'Integration'>;
type IntegrationLog = Schema<'IntegrationLog'>;

export interface IntegrationRecord {
  integration: Integration;
  workspaceId: string;
  environment: Environment;
  /** Kept as issued: deliveries are signed with the secret itself, which a hash could not do. Never shown again. */
  signingSecret: string;
}

/** Which integrations a caller may list: its workspace, the environments it reads, and its attachment. */
export interface IntegrationVisibility {
  workspaceId: string;
  environments: readonly Environment[];
  attachment: Attachment;
}

/** A pending attempt a worker has leased, with what it needs to send it. */
export interface DueDelivery {
  id: string;
  attempt: number;
  mock: boolean;
  integration: {
    id: string;
    workspaceId: string;
    url: string;
    signingSecret: string;
    /** The secret a rotation replaced and until when it still signs beside `signingSecret`; null when none is kept. */
    previousSecret: { secret: string; expiresAt: string } | null;
  };
  /** `synthetic`: a sample sent by dispatch with `type` (see EventRecord). */
  event: { id: string; type: Schema<'EventType'>; body: string; synthetic: boolean };
}

export interface AttemptResult {
  status: 'succeeded' | 'failed';
  /** The integration's URL when the attempt was made. */
  url: string;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  /** For a failed attempt that will be retried: when. The next attempt's log entry is created with it. */
  nextAttemptAt: string | null;
}

/** How many attempts may be in flight (leased and not yet recorded) at once, and how many to lease now. */
export interface ClaimRequest {
  now: string;
  leaseUntil: string;
  /** At most this many attempts leased by this call. */
  limit: number;
  /** In flight per integration, counting leases of every worker; 1 while the integration's breaker is probing. */
  perIntegration: number;
  /** In flight per workspace, counting leases of every worker. */
  perWorkspace: number;
}

/**
 * An integration's circuit breaker, kept with the integration. `pausedUntil` is set once the breaker has tripped
 * and stays set (an attempt at a time probes the endpoint once it has passed) until an attempt succeeds.
 */
export interface CircuitState {
  consecutiveFailures: number;
  /** The first failure since the last success. */
  failingSince: string | null;
  pausedUntil: string | null;
  enabled: boolean;
  disabledAt: string | null;
  disabledReason: Integration['disabled_reason'];
  updatedAt: string;
}

/** An integration's breaker before and after an attempt's outcome moved it, with the integration as it is now. */
export interface CircuitMove {
  before: CircuitState;
  after: CircuitState;
  integration: IntegrationRecord;
}

export interface CircuitUpdate {
  next(current: CircuitState): CircuitState;
  /** What the move causes (an `integration.disabled` event), written in the same transaction. */
  outbox?: Outbox<CircuitMove> | undefined;
}

export interface IntegrationStore {
  list(visibility: IntegrationVisibility, page: PageRequest): Promise<Page<Integration>>;
  get(workspaceId: string, id: string): Promise<IntegrationRecord | undefined>;
  /** Stores the integration and its `integration.created` audit event in one transaction. */
  create(record: IntegrationRecord, audit: AuditEventInput, outbox?: Outbox<void>): Promise<void>;
  /**
   * Replaces the integration's fields (never its secret); `resetCircuit` also closes its circuit breaker; `audit`
   * is recorded in the same transaction. With `expectedTag`, only if the stored integration's entity tag
   * (`entityTagOf`, src/etag.ts) still equals it, compared inside the transaction: `StoreConflict('changed_since_read')`
   * otherwise, `RecordNotFound('integration')` when it is gone.
   */
  update(
    record: IntegrationRecord,
    options?: { resetCircuit?: boolean; audit?: AuditEventInput; expectedTag?: string | undefined },
  ): Promise<void>;
  /**
   * Deletes the integration with its deliveries, pending or made, and records `audit`, in one transaction. With
   * `expectedTag`, only if the stored integration's entity tag still equals it, compared inside the transaction:
   * `StoreConflict('changed_since_read')` otherwise, `RecordNotFound('integration')` when it is gone.
   */
  delete(id: string, audit: AuditEventInput, options?: { expectedTag?: string | undefined }): Promise<void>;
  /**
   * Makes `rotation.secret` the signing secret. The one it replaces is kept beside it until
   * `previousExpiresAt`, or dropped at once when that is null; a secret an earlier rotation kept is dropped
   * either way. Records `audit` and writes the outbox (the request's response) in the same transaction.
   * Returns the integration as it now is; `RecordNotFound` when it is gone.
   */
  rotateSecret(
    id: string,
    rotation: { secret: string; hint: string; previousExpiresAt: string | null; at: string },
    audit: AuditEventInput,
    outbox?: Outbox<IntegrationRecord>,
  ): Promise<IntegrationRecord>;
  /** Forgets the previous secrets that expired at or before `now`; returns how many. */
  purgeExpiredSecrets(now: string): Promise<number>;
  /**
   * Stores the event and, in the same transaction, queues a first attempt for every enabled integration of the
   * workspace and the given environments that subscribes to its type (and, when limited to a form, is of that
   * form); the event is stored even when nobody subscribes (the events feed lists it). Returns how many attempts
   * were queued. For an event that no change of a use case causes; a change's events go in its outbox.
   */
  publish(event: EventRecord, subscribers: Subscribers): Promise<number>;
  /**
   * Queues a first attempt of the event to one integration, enabled or not (dispatch), due at `at`; `newEvent`
   * stores the event first. Returns the pending log entry; `RecordNotFound` when the integration is gone.
   */
  dispatch(
    integrationId: string,
    event: EventRecord,
    options: { newEvent: boolean; mock: boolean; at: string },
    outbox?: Outbox<IntegrationLog>,
  ): Promise<IntegrationLog>;
  listLogs(
    integrationId: string,
    environment: Environment,
    filter: { status?: IntegrationLog['status'] | undefined; eventType?: Schema<'EventType'> | undefined },
    page: PageRequest,
  ): Promise<Page<IntegrationLog>>;
  /**
   * Leases pending attempts due at `now` until `leaseUntil`, so that no other worker takes them meanwhile: those
   * of enabled integrations whose breaker is not pausing them, and dispatched ones. Within the in-flight caps of
   * `request`, workspaces take turns (each one's earliest attempt, then each one's second, ...), and so do the
   * integrations of a workspace.
   */
  claimDue(request: ClaimRequest): Promise<DueDelivery[]>;
  /**
   * Records the attempt's outcome and, when `nextAttemptAt` is set, queues the next attempt; given `circuit`, also
   * moves the integration's breaker to the state `circuit.next` returns for the current one and writes its outbox.
   * One transaction; returns the move, or null when the attempt was no longer pending (or no `circuit` was given).
   */
  recordAttempt(id: string, result: AttemptResult, circuit?: CircuitUpdate): Promise<CircuitMove | null>;
}
