/** Persistence of integrations, the events sent to them and their deliveries (the integration log). */
import type { Attachment, Environment, Schema } from '../contract.js';
import type { Page, PageRequest } from './page.js';

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

export interface EventRecord {
  id: string;
  workspaceId: string;
  environment: Environment;
  type: Schema<'EventType'>;
  /** The form the event concerns (for integrations limited to one form); null for pings. */
  formId: string | null;
  createdAt: string;
  /** The envelope as JSON text: the exact bytes every attempt and replay sends and signs. */
  body: string;
}

/** Who receives a published event besides its workspace and type: the integrations of these environments. */
export interface Subscribers {
  environments: readonly Environment[];
  /** Record the attempts against the mock endpoint instead of sending them (test mode). */
  mock: boolean;
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
  create(record: IntegrationRecord): Promise<void>;
  /** Replaces the integration's fields (never its secret). */
  update(record: IntegrationRecord): Promise<void>;
  /** Deletes the integration with its deliveries, pending or made, in one transaction. */
  delete(id: string): Promise<void>;
  /**
   * Stores the event and, in the same transaction, queues a first attempt for every enabled integration of the
   * workspace and the given environments that subscribes to its type (and, when limited to a form, is of that
   * form). Returns how many attempts were queued.
   */
  /** Whether any enabled integration would receive such an event: publishers skip building events nobody gets. */
  hasSubscribers(
    workspaceId: string,
    environments: readonly Environment[],
    type: Schema<'EventType'>,
    formId: string | null,
  ): Promise<boolean>;
  publish(event: EventRecord, subscribers: Subscribers): Promise<number>;
  getEvent(workspaceId: string, environment: Environment, id: string): Promise<EventRecord | undefined>;
  /**
   * Queues a first attempt of the event to one integration, enabled or not (dispatch), due at `at`; `newEvent`
   * stores the event first. Returns the pending log entry; `RecordNotFound` when the integration is gone.
   */
  dispatch(integrationId: string, event: EventRecord, options: { newEvent: boolean; mock: boolean; at: string }): Promise<IntegrationLog>;
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
