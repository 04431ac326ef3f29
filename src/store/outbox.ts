/**
 * The transactional outbox. A change, the events it causes and the response of the request that made it are
 * written in one transaction: apart, a crash between them could lose an event, or leave an Idempotency-Key
 * unanswered so that the client's retry makes the change a second time.
 *
 * A store method that makes a use case's change takes an `Outbox` of its result. The store calls it inside the
 * change's transaction, once the change's own writes are done, and writes what it returns before committing;
 * when any of it fails, nothing of the change remains. The outbox is synchronous and only computes, so a store
 * whose transactions cannot await (SQLite) calls it as readily as one that holds a connection for the whole
 * transaction (PostgreSQL: `BEGIN`, the change, the outbox's rows, `COMMIT`).
 */
import type { Environment, Schema } from '../contract.js';

export type Outbox<R> = (result: R) => OutboxEntries;

export interface OutboxEntries {
  /** Each stored (the events feed lists it) with a first attempt per subscribed integration. */
  events?: readonly OutboxEvent[] | undefined;
  /** Completes the request's Idempotency-Key claim with its response. */
  response?: IdempotentResponse | undefined;
}

export interface EventRecord {
  id: string;
  workspaceId: string;
  environment: Environment;
  type: Schema<'EventType'>;
  /** The form the event concerns (for integrations limited to one form); null for pings. */
  formId: string | null;
  /**
   * The submission a `submission.*` event carries (`data.object.id`): deleting or erasing it finds the event by this.
   * Null for other events.
   */
  submissionId: string | null;
  createdAt: string;
  /** The envelope as JSON text: the exact bytes every attempt and replay sends and signs. */
  body: string;
  /** A sample sent by dispatch (`synthetic: true` in its body): its attempts send `X-Service-Synthetic: true`. */
  synthetic?: boolean | undefined;
}

/** Who receives a published event besides its workspace and type: the integrations of these environments. */
export interface Subscribers {
  environments: readonly Environment[];
  /** Record the attempts against the mock endpoint instead of sending them (test mode). */
  mock: boolean;
}

export interface OutboxEvent {
  event: EventRecord;
  subscribers: Subscribers;
}

/** An enabled integration of the workspace and environments, as the stores read it to match a change's events. */
export interface EnabledIntegration {
  id: string;
  url: string;
  events: readonly string[];
  formId: string | null;
}

/** Whether the integration receives the event: it subscribes to the type, for every form or for the event's. */
export const subscribesTo = (integration: EnabledIntegration, event: Pick<EventRecord, 'type' | 'formId'>): boolean =>
  integration.events.includes(event.type) && (integration.formId === null || integration.formId === event.formId);

/**
 * A claimed key's response, sealed by the caller. Written only while the claim is still in progress: if another
 * request completed it meanwhile (this one was taken for abandoned), the change is refused rather than made twice.
 */
export interface IdempotentResponse {
  ownerId: string;
  keyHash: string;
  sealedResponse: string;
  /**
   * The submission whose data the response carries, if any: the store cannot open a sealed response, so this is
   * how an erasure of the submission finds it (and clears it).
   */
  submissionId?: string | null | undefined;
}
