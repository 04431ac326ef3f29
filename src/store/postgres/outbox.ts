/**
 * The PostgreSQL side of the transactional outbox (see ../outbox.ts), and the event and first-attempt rows it
 * shares with the integrations store (publish, dispatch). The change, the outbox's rows and the claim's
 * completion run on one connection between `BEGIN` and `COMMIT`.
 */
import type pg from 'pg';
import type { Environment } from '../../contract.js';
import { newId } from '../../ids.js';
import { StoreConflict } from '../errors.js';
import {
  type EnabledIntegration,
  type EventRecord,
  type IdempotentResponse,
  type Outbox,
  type OutboxEntries,
  type OutboxEvent,
  subscribesTo,
} from '../outbox.js';
import { type DeliveryRow, firstAttempt } from '../rows/integrations.js';
import { all, inTransaction, type Queryable, run } from './database.js';

/** Runs the change and writes its outbox in one transaction, so that they commit together or not at all. */
export function withOutbox<R>(pool: pg.Pool, outbox: Outbox<R> | undefined, change: (client: pg.PoolClient) => Promise<R>): Promise<R> {
  return inTransaction(pool, async (client) => {
    const result = await change(client);
    if (outbox) await writeOutbox(client, outbox(result));
    return result;
  });
}

export async function writeOutbox(db: Queryable, { events = [], response }: OutboxEntries): Promise<void> {
  await insertEventsForSubscribers(db, events);
  if (response && !(await completeClaim(db, response))) {
    // Another request holds or has answered this key (ours was taken over as abandoned): making the change too
    // would make it twice. Throwing rolls it back; the client's retry gets the other request's response.
    throw new StoreConflict('idempotency_claim_lost');
  }
}

/** Completes a claim still in progress; false when it is not (taken over, or answered by another request). */
export async function completeClaim(
  db: Queryable,
  { ownerId, keyHash, sealedResponse, submissionId }: IdempotentResponse,
): Promise<boolean> {
  const changed = await run(
    db,
    `UPDATE idempotency_keys SET state = 'done', sealed_response = $1, submission_id = $4
     WHERE owner_id = $2 AND key_hash = $3 AND state = 'in_progress'`,
    [sealedResponse, ownerId, keyHash, submissionId ?? null],
  );
  return changed === 1;
}

type IntegrationRow = { id: string; url: string; events: string[]; form_id: string | null };
const toEnabled = (row: IntegrationRow): EnabledIntegration => ({ id: row.id, url: row.url, events: row.events, formId: row.form_id });

/** The enabled integrations of a workspace in these environments, whatever they subscribe to; read unlocked. */
const enabledIntegrations = async (
  db: Queryable,
  workspaceId: string,
  environments: readonly Environment[],
): Promise<EnabledIntegration[]> =>
  (
    await all<IntegrationRow>(
      db,
      'SELECT id, url, events, form_id FROM integrations WHERE workspace_id = $1 AND environment = ANY($2::text[]) AND enabled',
      [workspaceId, environments],
    )
  ).map(toEnabled);

/**
 * Locks the integrations the events reach, as the deliveries' foreign key would lock them, and returns them as they
 * are once locked (still there and enabled). An integration whose delete is in flight is waited for, then skipped;
 * one deleted after the lock waits for this transaction and takes its deliveries with it. Without the lock the
 * delete could commit between the read and the first attempt's insert, whose foreign key would then fail.
 *
 * Only the reached rows, in id order: locking every enabled integration of the workspace would make concurrent
 * writers share locks on rows none of them writes to (MultiXacts), and order them against every integration's
 * delete or edit.
 */
async function lockReached(db: Queryable, ids: ReadonlySet<string>): Promise<Map<string, EnabledIntegration>> {
  if (ids.size === 0) return new Map();
  const rows = await all<IntegrationRow>(
    db,
    'SELECT id, url, events, form_id FROM integrations WHERE id = ANY($1::text[]) AND enabled ORDER BY id COLLATE "C" FOR KEY SHARE',
    [[...ids]],
  );
  return new Map(rows.map((row) => [row.id, toEnabled(row)]));
}

/**
 * Stores each event with a first attempt per subscribed integration; returns how many were queued. As in the
 * SQLite store: every event is stored, and the integrations are read once per workspace and environments. The
 * integrations reached are then locked in one statement and checked again as locked (an edit committed meanwhile
 * may have changed what they subscribe to).
 */
export async function insertEventsForSubscribers(db: Queryable, entries: readonly OutboxEvent[]): Promise<number> {
  const enabled = new Map<string, EnabledIntegration[]>();
  const reachedBy: EnabledIntegration[][] = [];
  for (const { event, subscribers } of entries) {
    const key = `${event.workspaceId} ${subscribers.environments.join(' ')}`;
    let integrations = enabled.get(key);
    if (!integrations) {
      integrations = await enabledIntegrations(db, event.workspaceId, subscribers.environments);
      enabled.set(key, integrations);
    }
    reachedBy.push(integrations.filter((integration) => subscribesTo(integration, event)));
  }
  const locked = await lockReached(db, new Set(reachedBy.flat().map((integration) => integration.id)));
  let queued = 0;
  for (const [index, { event, subscribers }] of entries.entries()) {
    await insertEvent(db, event);
    for (const { id } of reachedBy[index]!) {
      const integration = locked.get(id);
      if (!integration || !subscribesTo(integration, event)) continue;
      await queueFirstAttempt(db, integration, event, event.createdAt, subscribers.mock, false);
      queued++;
    }
  }
  return queued;
}

export const insertEvent = (db: Queryable, event: EventRecord) =>
  run(
    db,
    `INSERT INTO events (id, workspace_id, environment, type, form_id, body, created_at, synthetic, submission_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      event.id,
      event.workspaceId,
      event.environment,
      event.type,
      event.formId,
      event.body,
      event.createdAt,
      event.synthetic === true,
      event.submissionId,
    ],
  );

/** A first attempt, due at once (`at`: when it was queued). */
export async function queueFirstAttempt(
  db: Queryable,
  integration: { id: string; url: string },
  event: EventRecord,
  at: string,
  mock: boolean,
  dispatched: boolean,
): Promise<DeliveryRow> {
  const row = firstAttempt(integration, event, { id: newId('dlv'), at, mock, dispatched });
  await insertDelivery(db, row);
  return row;
}

export const insertDelivery = (db: Queryable, row: DeliveryRow) =>
  run(
    db,
    `INSERT INTO deliveries (id, workspace_id, environment, integration_id, event_id, event_type, attempt, status, url, mock, dispatched,
       response_status, duration_ms, error, next_attempt_at, due_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [
      row.id,
      row.workspace_id,
      row.environment,
      row.integration_id,
      row.event_id,
      row.event_type,
      row.attempt,
      row.status,
      row.url,
      Boolean(row.mock),
      Boolean(row.dispatched),
      row.response_status,
      row.duration_ms,
      row.error,
      row.next_attempt_at,
      row.due_at,
      row.created_at,
    ],
  );
