/**
 * The events feed: every event of the caller's workspace and environment from the last 30 days, in the envelope
 * its webhook deliveries carry, read from the rows the transactional outbox writes (the same rows dispatch
 * replays, so a feed id is a replayable id). Attached keys see the events of the forms they reach; events of no
 * form (`integration.*`) are the workspace's.
 */

import type { Schema } from '../../contract.js';
import type { EventFilter } from '../../store/event-store.js';
import type { EventRecord } from '../../store/outbox.js';
import type { PageRequest } from '../../store/page.js';
import type { Principal } from '../access.js';
import { inBatches } from '../batches.js';
import { normalisedTimestamp } from '../client-timestamps.js';
import { forbidden, notFound } from '../errors.js';
import type { Services } from '../services.js';

type Event = Schema<'Event'>;

/** How long events are kept, in days (the feed's documented window). */
export const EVENT_RETENTION_DAYS = 30;

/** Events deleted per statement by the retention job, so that no one transaction holds the table for long. */
const PURGE_BATCH = 1000;

/** The stored envelope: the very bytes deliveries send, parsed. */
const envelopeOf = (record: EventRecord): Event => JSON.parse(record.body) as Event;

export async function listEvents(services: Services, principal: Principal, filter: EventFilter, page: PageRequest) {
  const { data, hasMore } = await services.store.events.list(
    { workspaceId: principal.workspace.id, environment: principal.environment, attachment: principal.attachment },
    {
      types: filter.types,
      createdGte: normalisedTimestamp(filter.createdGte, 'created_gte'),
      createdLt: normalisedTimestamp(filter.createdLt, 'created_lt'),
    },
    page,
  );
  return { data: data.map(envelopeOf), hasMore };
}

export async function getEvent(services: Services, principal: Principal, id: string): Promise<Event> {
  const record = await services.store.events.get(principal.workspace.id, principal.environment, id);
  if (!record) throw notFound('event', id);
  await assertEventReachable(services, principal, record);
  return envelopeOf(record);
}

/** An attached key reaches the events of its form, or of the forms its folder holds now. */
async function assertEventReachable(services: Services, principal: Principal, event: EventRecord): Promise<void> {
  const { attachment } = principal;
  if (attachment.type === 'workspace') return;
  if (event.formId !== null) {
    if (attachment.type === 'form' && attachment.form_id === event.formId) return;
    if (attachment.type === 'folder') {
      const form = await services.store.forms.get(principal.workspace.id, event.formId);
      if (form?.form.folder_id === attachment.folder_id) return;
    }
  }
  throw forbidden('form_not_attached', `This key is attached to a ${attachment.type} and cannot reach event ${event.id}.`);
}

/**
 * The retention job: deletes the events older than the window, in batches, and returns how many. An event an
 * attempt is still pending for stays until that attempt is made.
 */
export async function purgeExpiredEvents(services: Pick<Services, 'store' | 'now'>, now = services.now()): Promise<number> {
  const before = new Date(now.getTime() - EVENT_RETENTION_DAYS * 24 * 3600 * 1000).toISOString();
  return inBatches(PURGE_BATCH, (limit) => services.store.events.purgeBefore(before, limit));
}
