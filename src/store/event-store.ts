/**
 * The events feed: every event the service emitted, as stored by the transactional outbox (see ./outbox.ts) in
 * the change's own transaction, subscribed to or not. Dispatch replays events from the same rows, so an id
 * the feed shows is one a replay finds.
 */
import type { Attachment, Environment, Schema } from '../contract.js';
import type { EventRecord } from './outbox.js';
import type { Page, PageRequest } from './page.js';

/** Which events a caller may list: one workspace and environment, and the forms its attachment reaches. */
export interface EventVisibility {
  workspaceId: string;
  environment: Environment;
  attachment: Attachment;
}

export interface EventFilter {
  /** Any of these types; all when undefined. */
  types?: readonly Schema<'EventType'>[] | undefined;
  createdGte?: string | undefined;
  createdLt?: string | undefined;
}

export interface EventStore {
  /** Newest first; a form- or folder-attached caller gets only events of forms it reaches. */
  list(visibility: EventVisibility, filter: EventFilter, page: PageRequest): Promise<Page<EventRecord>>;
  get(workspaceId: string, environment: Environment, id: string): Promise<EventRecord | undefined>;
  /**
   * Deletes at most `limit` events created before `before`, oldest first, and returns how many. An event an
   * attempt is still pending for is kept until that attempt is made (a delivery never loses its body).
   */
  purgeBefore(before: string, limit: number): Promise<number>;
}
