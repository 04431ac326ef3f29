/** Persistence of integrations, the events sent to them and their deliveries (the integration log). */
import type { Attachment, Environment, Schema } from '../contract.js';
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
  integration: { id: string; url: string; signingSecret: string };
  event: { id: string; type: Schema<'EventType'>; body: string };
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

export interface IntegrationStore {
  list(visibility: IntegrationVisibility, page: PageRequest): Promise<Page<Integration>>;
  get(workspaceId: string, id: string): Promise<IntegrationRecord | undefined>;
  create(record: IntegrationRecord, outbox?: Outbox<void>): Promise<void>;
  /** Replaces the integration's fields (never its secret). */
  update(record: IntegrationRecord): Promise<void>;
  /** Deletes the integration with its deliveries, pending or made, in one transaction. */
  delete(id: string): Promise<void>;
  /**
   * Stores the event and, in the same transaction, queues a first attempt for every enabled integration of the
   * workspace and the given environments that subscribes to its type (and, when limited to a form, is of that
   * form); an event nobody subscribes to is not stored. Returns how many attempts were queued. For an event that
   * no change of a use case causes; a change's events go in its outbox.
   */
  publish(event: EventRecord, subscribers: Subscribers): Promise<number>;
  getEvent(workspaceId: string, environment: Environment, id: string): Promise<EventRecord | undefined>;
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
   * Leases up to `limit` pending attempts due at `now` (of enabled integrations, or dispatched) until
   * `leaseUntil`, so that no other worker takes them meanwhile.
   */
  claimDue(now: string, leaseUntil: string, limit: number): Promise<DueDelivery[]>;
  /** Records the attempt's outcome and, when `nextAttemptAt` is set, queues the next attempt; one transaction. */
  recordAttempt(id: string, result: AttemptResult): Promise<void>;
}
