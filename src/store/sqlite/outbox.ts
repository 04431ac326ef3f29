/**
 * The SQLite side of the transactional outbox (see ../outbox.ts), and the event and first-attempt rows it shares
 * with the integrations store (publish, dispatch).
 */
import type Database from 'better-sqlite3';
import type { Environment } from '../../contract.js';
import { newId } from '../../ids.js';
import { StoreConflict } from '../errors.js';
import type { EventRecord, Outbox, OutboxEntries, Subscribers } from '../outbox.js';
import { type DeliveryRow, firstAttempt } from '../rows/integrations.js';
import { completeClaim } from './idempotency.js';
import { statement, transaction } from './statements.js';

/**
 * Runs the change and writes its outbox in one IMMEDIATE transaction (a savepoint when the caller already holds
 * one), so that the change, its events and its request's response commit together or not at all.
 */
export function withOutbox<R>(db: Database.Database, outbox: Outbox<R> | undefined, change: () => R): R {
  return transaction(db, 'immediate', () => {
    const result = change();
    if (outbox) writeOutbox(db, outbox(result));
    return result;
  });
}

export function writeOutbox(db: Database.Database, { events = [], response }: OutboxEntries): void {
  for (const { event, subscribers } of events) insertEventForSubscribers(db, event, subscribers);
  if (response && !completeClaim(db, response)) {
    // Another request holds or has answered this key (ours was taken over as abandoned): making the change too
    // would make it twice. Throwing rolls it back; the client's retry gets the other request's response.
    throw new StoreConflict('idempotency_claim_lost');
  }
}

const placeholders = (values: readonly unknown[]): string => values.map(() => '?').join(', ');

export function enabledSubscribers(
  db: Database.Database,
  workspaceId: string,
  environments: readonly Environment[],
  type: string,
  formId: string | null,
): Array<{ id: string; url: string }> {
  return statement(
    db,
    `SELECT id, url FROM integrations
     WHERE workspace_id = ? AND environment IN (${placeholders(environments)}) AND enabled = 1
       AND EXISTS (SELECT 1 FROM json_each(integrations.events) WHERE json_each.value = ?)
       AND (form_id IS NULL OR form_id = ?)`,
  ).all(workspaceId, ...environments, type, formId) as Array<{ id: string; url: string }>;
}

/** Stores the event with a first attempt per subscribed integration; returns how many were queued. */
export function insertEventForSubscribers(db: Database.Database, event: EventRecord, subscribers: Subscribers): number {
  // Stored whether or not an integration subscribes: the events feed lists every event (a partner reconciles
  // from it and replays what it missed), at the cost of one more row on each change that emits one.
  insertEvent(db, event);
  const integrations = enabledSubscribers(db, event.workspaceId, subscribers.environments, event.type, event.formId);
  for (const integration of integrations) queueFirstAttempt(db, integration, event, event.createdAt, subscribers.mock, false);
  return integrations.length;
}

export function insertEvent(db: Database.Database, event: EventRecord): void {
  statement(db, 'INSERT INTO events (id, workspace_id, environment, type, form_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
    event.id,
    event.workspaceId,
    event.environment,
    event.type,
    event.formId,
    event.body,
    event.createdAt,
  );
}

/** A first attempt, due at once (`at`: when it was queued). */
export function queueFirstAttempt(
  db: Database.Database,
  integration: { id: string; url: string },
  event: EventRecord,
  at: string,
  mock: boolean,
  dispatched: boolean,
): DeliveryRow {
  const row = firstAttempt(integration, event, { id: newId('dlv'), at, mock, dispatched });
  insertDelivery(db, row);
  return row;
}

export function insertDelivery(db: Database.Database, row: DeliveryRow): void {
  statement(
    db,
    `INSERT INTO deliveries (id, workspace_id, environment, integration_id, event_id, event_type, attempt, status, url, mock, dispatched,
       response_status, duration_ms, error, next_attempt_at, due_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    row.id,
    row.workspace_id,
    row.environment,
    row.integration_id,
    row.event_id,
    row.event_type,
    row.attempt,
    row.status,
    row.url,
    row.mock ? 1 : 0,
    row.dispatched ? 1 : 0,
    row.response_status,
    row.duration_ms,
    row.error,
    row.next_attempt_at,
    row.due_at,
    row.created_at,
  );
}
