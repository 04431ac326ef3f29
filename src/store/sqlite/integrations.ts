import type Database from 'better-sqlite3';
import type { Environment } from '../../contract.js';
import { newId } from '../../ids.js';
import { RecordNotFound } from '../errors.js';
import type { EventRecord, IntegrationStore } from '../integration-store.js';
import {
  type DeliveryRow,
  type DueDeliveryRow,
  type EventRow,
  firstAttempt,
  type IntegrationRow,
  nextAttempt,
  toDueDelivery,
  toEvent,
  toIntegration,
  toIntegrationRecord,
  toLog,
} from '../rows/integrations.js';
import { keysetPage } from './pagination.js';
import { statement } from './statements.js';

/**
 * Statements run inside a form's deletion (parameter: the form id). Integrations limited to the form are
 * kept: they still receive its `form.deleted` event, published after the cascade. The events of the form's
 * submissions are deleted with the submissions (their bodies hold the answers the deletion promises to
 * remove), and so are their attempts still pending; log entries of attempts already made hold no answers
 * and stay.
 */
export const integrationFormCascade: string[] = [
  `DELETE FROM deliveries WHERE status = 'pending' AND event_id IN (SELECT id FROM events WHERE form_id = ? AND type LIKE 'submission.%')`,
  `DELETE FROM events WHERE form_id = ? AND type LIKE 'submission.%'`,
];

/**
 * Test-mode rows of a workspace (parameter: workspace id), with the count they report: every test-mode
 * delivery (to test integrations, and the sandbox's mock deliveries to live ones), test events, then the
 * test integrations.
 */
export const integrationTestData: Array<{ counts: 'integrations' | 'integration_logs' | null; sql: string }> = [
  { counts: 'integration_logs', sql: `DELETE FROM deliveries WHERE workspace_id = ? AND environment = 'test'` },
  { counts: null, sql: `DELETE FROM events WHERE workspace_id = ? AND environment = 'test'` },
  { counts: 'integrations', sql: `DELETE FROM integrations WHERE workspace_id = ? AND environment = 'test'` },
];

const placeholders = (values: readonly unknown[]): string => values.map(() => '?').join(', ');

export function sqliteIntegrations(db: Database.Database): IntegrationStore {
  const subscribersOf = (workspaceId: string, environments: readonly Environment[], type: string, formId: string | null) =>
    statement(
      db,
      `SELECT id, url FROM integrations
       WHERE workspace_id = ? AND environment IN (${placeholders(environments)}) AND enabled = 1
         AND EXISTS (SELECT 1 FROM json_each(integrations.events) WHERE json_each.value = ?)
         AND (form_id IS NULL OR form_id = ?)`,
    ).all(workspaceId, ...environments, type, formId) as Array<{ id: string; url: string }>;
  const insertEvent = (event: EventRecord): void => {
    statement(db, 'INSERT INTO events (id, workspace_id, environment, type, form_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      event.id,
      event.workspaceId,
      event.environment,
      event.type,
      event.formId,
      event.body,
      event.createdAt,
    );
  };

  /** A first attempt, due at once (`at`: when it was queued). */
  const queueFirstAttempt = (
    integration: { id: string; url: string },
    event: EventRecord,
    at: string,
    mock: boolean,
    dispatched: boolean,
  ): DeliveryRow => {
    const row = firstAttempt(integration, event, { id: newId('dlv'), at, mock, dispatched });
    insertDelivery(row);
    return row;
  };

  const insertDelivery = (row: DeliveryRow): void => {
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
  };

  return {
    async list(visibility, page) {
      const { environments, attachment } = visibility;
      const where = ['i.workspace_id = ?', `i.environment IN (${placeholders(environments)})`];
      const params: unknown[] = [visibility.workspaceId, ...environments];
      // Attached keys see the integrations of the forms they reach, never the workspace-wide ones.
      if (attachment.type === 'form') {
        where.push('i.form_id = ?');
        params.push(attachment.form_id);
      } else if (attachment.type === 'folder') {
        where.push('i.form_id IN (SELECT f.id FROM forms f WHERE f.folder_id = ?)');
        params.push(attachment.folder_id);
      }
      const result = keysetPage<IntegrationRow>(db, {
        from: 'integrations i',
        alias: 'i',
        select: 'i.*',
        where: where.join(' AND '),
        params,
        page,
      });
      return { data: result.data.map(toIntegration), hasMore: result.hasMore };
    },

    async get(workspaceId, id) {
      const row = statement(db, 'SELECT * FROM integrations WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as
        | IntegrationRow
        | undefined;
      return row && toIntegrationRecord(row);
    },

    async create({ integration: i, workspaceId, environment, signingSecret }) {
      statement(
        db,
        `INSERT INTO integrations (id, workspace_id, environment, url, events, enabled, description, form_id, signing_secret, secret_hint, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        i.id,
        workspaceId,
        environment,
        i.url,
        JSON.stringify(i.events),
        i.enabled ? 1 : 0,
        i.description,
        i.form_id,
        signingSecret,
        i.secret_hint,
        i.created_at,
        i.updated_at,
      );
    },

    async update({ integration: i }) {
      statement(
        db,
        'UPDATE integrations SET url = ?, events = ?, enabled = ?, description = ?, form_id = ?, updated_at = ? WHERE id = ?',
      ).run(i.url, JSON.stringify(i.events), i.enabled ? 1 : 0, i.description, i.form_id, i.updated_at, i.id);
    },

    async delete(id) {
      db.transaction(() => {
        statement(db, 'DELETE FROM deliveries WHERE integration_id = ?').run(id);
        statement(db, 'DELETE FROM integrations WHERE id = ?').run(id);
      })();
    },

    async hasSubscribers(workspaceId, environments, type, formId) {
      return subscribersOf(workspaceId, environments, type, formId).length > 0;
    },

    async publish(event, subscribers) {
      const { environments } = subscribers;
      return db
        .transaction(() => {
          const integrations = subscribersOf(event.workspaceId, environments, event.type, event.formId);
          // An event no integration subscribes to is not kept: nothing can be delivered or replayed from it, and
          // storing every submission's payload a second time would double the write cost of the busiest path.
          if (integrations.length === 0) return 0;
          insertEvent(event);
          for (const integration of integrations) queueFirstAttempt(integration, event, event.createdAt, subscribers.mock, false);
          return integrations.length;
        })
        .immediate();
    },

    async getEvent(workspaceId, environment, id) {
      const row = statement(db, 'SELECT * FROM events WHERE id = ? AND workspace_id = ? AND environment = ?').get(
        id,
        workspaceId,
        environment,
      ) as EventRow | undefined;
      return row && toEvent(row);
    },

    async dispatch(integrationId, event, { newEvent, mock, at }) {
      return db
        .transaction(() => {
          const integration = statement(db, 'SELECT id, url FROM integrations WHERE id = ?').get(integrationId) as
            | { id: string; url: string }
            | undefined;
          if (!integration) throw new RecordNotFound('integration', integrationId);
          if (newEvent) insertEvent(event);
          return toLog(queueFirstAttempt(integration, event, at, mock, true));
        })
        .immediate();
    },

    async listLogs(integrationId, environment, filter, page) {
      const where = ['d.integration_id = ?', 'd.environment = ?'];
      const params: unknown[] = [integrationId, environment];
      if (filter.status !== undefined) {
        where.push('d.status = ?');
        params.push(filter.status);
      }
      if (filter.eventType !== undefined) {
        where.push('d.event_type = ?');
        params.push(filter.eventType);
      }
      const result = keysetPage<DeliveryRow>(db, {
        from: 'deliveries d',
        alias: 'd',
        select: 'd.*',
        where: where.join(' AND '),
        params,
        page,
      });
      return { data: result.data.map(toLog), hasMore: result.hasMore };
    },

    async claimDue(now, leaseUntil, limit) {
      return db
        .transaction(() => {
          const rows = statement(
            db,
            `SELECT d.id, d.attempt, d.mock, i.id AS integration_id, i.url, i.signing_secret, e.id AS event_id, e.type AS event_type, e.body
           FROM deliveries d
           JOIN integrations i ON i.id = d.integration_id
           JOIN events e ON e.id = d.event_id
           WHERE d.status = 'pending' AND d.due_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?) AND (i.enabled = 1 OR d.dispatched = 1)
           ORDER BY d.due_at, d.id
           LIMIT ?`,
          ).all(now, now, limit) as DueDeliveryRow[];
          const lease = statement(db, 'UPDATE deliveries SET lease_until = ? WHERE id = ?');
          for (const row of rows) lease.run(leaseUntil, row.id);
          return rows.map(toDueDelivery);
        })
        .immediate();
    },

    async recordAttempt(id, result) {
      db.transaction(() => {
        const changed = statement(
          db,
          `UPDATE deliveries SET status = ?, url = ?, response_status = ?, duration_ms = ?, error = ?, next_attempt_at = ?, lease_until = NULL
           WHERE id = ? AND status = 'pending'`,
        ).run(result.status, result.url, result.responseStatus, result.durationMs, result.error, result.nextAttemptAt, id).changes;
        if (changed === 0 || result.nextAttemptAt === null) return;
        const row = statement(db, 'SELECT * FROM deliveries WHERE id = ?').get(id) as DeliveryRow;
        insertDelivery(nextAttempt(row, newId('dlv'), result.nextAttemptAt));
      }).immediate();
    },
  };
}
