/**
 * The SQLite side of the transactional outbox (see ../outbox.ts), and the event and first-attempt rows it shares
 * with the integrations store (publish, dispatch).
 */
import type Database from 'better-sqlite3';
import type { Environment } from '../../contract.js';
import { newId } from '../../ids.js';
import { StoreConflict } from '../errors.js';
import { type EnabledIntegration, type EventRecord, type Outbox, type OutboxEntries, type OutboxEvent, subscribesTo } from '../outbox.js';
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
  insertEventsForSubscribers(db, events);
  if (response && !completeClaim(db, response)) {
    // Another request holds or has answered this key (ours was taken over as abandoned): making the change too
    // would make it twice. Throwing rolls it back; the client's retry gets the other request's response.
    throw new StoreConflict('idempotency_claim_lost');
  }
}

const placeholders = (values: readonly unknown[]): string => values.map(() => '?').join(', ');

/** The statement reading the enabled integrations of a workspace in `count` environments, built once per count. */
const enabledIntegrationsSql = new Map<number, string>();
const enabledIntegrationsIn = (count: number): string => {
  let sql = enabledIntegrationsSql.get(count);
  if (sql === undefined) {
    sql = `SELECT id, url, events, form_id FROM integrations
           WHERE workspace_id = ? AND environment IN (${placeholders(Array.from({ length: count }))}) AND enabled = 1`;
    enabledIntegrationsSql.set(count, sql);
  }
  return sql;
};

/** The enabled integrations of a workspace in these environments, whatever they subscribe to. */
function enabledIntegrations(db: Database.Database, workspaceId: string, environments: readonly Environment[]): EnabledIntegration[] {
  const rows = statement(db, enabledIntegrationsIn(environments.length)).all(workspaceId, ...environments) as Array<{
    id: string;
    url: string;
    events: string;
    form_id: string | null;
  }>;
  return rows.map((row) => ({ id: row.id, url: row.url, events: JSON.parse(row.events) as string[], formId: row.form_id }));
}

/**
 * Stores each event with a first attempt per subscribed integration; returns how many were queued. Every event is
 * stored whether or not an integration subscribes: the events feed lists every event (a partner reconciles from it
 * and replays what it missed), at the cost of one more row on each change that emits one. The integrations are
 * read once per workspace and environments, however many events the change has (a created submission has two).
 */
export function insertEventsForSubscribers(db: Database.Database, entries: readonly OutboxEvent[]): number {
  const enabled = new Map<string, EnabledIntegration[]>();
  let queued = 0;
  for (const { event, subscribers } of entries) {
    insertEvent(db, event);
    const key = `${event.workspaceId} ${subscribers.environments.join(' ')}`;
    let integrations = enabled.get(key);
    if (!integrations) {
      integrations = enabledIntegrations(db, event.workspaceId, subscribers.environments);
      enabled.set(key, integrations);
    }
    for (const integration of integrations) {
      if (!subscribesTo(integration, event)) continue;
      queueFirstAttempt(db, integration, event, event.createdAt, subscribers.mock, false);
      queued++;
    }
  }
  return queued;
}

export function insertEvent(db: Database.Database, event: EventRecord): void {
  statement(
    db,
    'INSERT INTO events (id, workspace_id, environment, type, form_id, body, created_at, synthetic) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(event.id, event.workspaceId, event.environment, event.type, event.formId, event.body, event.createdAt, event.synthetic ? 1 : 0);
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
