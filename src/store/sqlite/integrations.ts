import type Database from 'better-sqlite3';
import { newId } from '../../ids.js';
import { RecordNotFound } from '../errors.js';
import type { CircuitMove, CircuitUpdate, IntegrationStore } from '../integration-store.js';
import { assertTagUnchanged } from '../rows/entity-tags.js';
import {
  type DeliveryRow,
  type DueDeliveryRow,
  type IntegrationRow,
  nextAttempt,
  toCircuit,
  toDueDelivery,
  toIntegration,
  toIntegrationRecord,
  toLog,
} from '../rows/integrations.js';
import { insertAuditEvent } from './audit-events.js';
import { insertDelivery, insertEvent, insertEventsForSubscribers, queueFirstAttempt, withOutbox, writeOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { statement, transaction } from './statements.js';
import { countDeliveryAttempt } from './usage.js';

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

export function sqliteIntegrations(db: Database.Database): IntegrationStore {
  /** The attempt after a failed one, due at `dueAt`; its log entry is created then. */
  const queueRetry = (failed: DeliveryRow, dueAt: string): void => insertDelivery(db, nextAttempt(failed, newId('dlv'), dueAt));

  const integrationRow = (id: string) => statement(db, 'SELECT * FROM integrations WHERE id = ?').get(id) as IntegrationRow | undefined;

  /**
   * An integration is limited to a form of its own workspace: checked in the write's transaction, so a form deleted
   * or moved by a transfer since the caller read it is not found.
   */
  const assertFormOwned = (formId: string | null, workspaceId: string): void => {
    if (formId !== null && !statement(db, 'SELECT 1 FROM forms WHERE id = ? AND workspace_id = ?').get(formId, workspaceId))
      throw new RecordNotFound('form', formId);
  };

  /** Runs inside recordAttempt's transaction: the breaker's move and what it causes commit with the attempt. */
  const moveCircuit = (integrationId: string, circuit: CircuitUpdate): CircuitMove | null => {
    const current = integrationRow(integrationId);
    if (!current) return null;
    const before = toCircuit(current);
    const after = circuit.next(before);
    statement(
      db,
      `UPDATE integrations SET consecutive_failures = ?, failing_since = ?, paused_until = ?, enabled = ?, disabled_at = ?,
         disabled_reason = ?, updated_at = ?
       WHERE id = ?`,
    ).run(
      after.consecutiveFailures,
      after.failingSince,
      after.pausedUntil,
      after.enabled ? 1 : 0,
      after.disabledAt,
      after.disabledReason,
      after.updatedAt,
      integrationId,
    );
    const updated = integrationRow(integrationId)!;
    const move: CircuitMove = {
      before,
      after,
      integration: toIntegrationRecord(updated),
    };
    if (circuit.outbox) writeOutbox(db, circuit.outbox(move));
    return move;
  };

  return {
    async list(visibility, page) {
      const { environments, attachment } = visibility;
      const where = ['i.workspace_id = ?', `i.environment IN (${environments.map(() => '?').join(', ')})`];
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

    async create({ integration: i, workspaceId, environment, signingSecret }, audit, outbox) {
      withOutbox(db, outbox, () => {
        assertFormOwned(i.form_id, workspaceId);
        insertAuditEvent(db, audit);
        statement(
          db,
          `INSERT INTO integrations (id, workspace_id, environment, url, events, enabled, disabled_at, disabled_reason,
             description, form_id, signing_secret, secret_hint, created_at, updated_at, metadata)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          i.id,
          workspaceId,
          environment,
          i.url,
          JSON.stringify(i.events),
          i.enabled ? 1 : 0,
          i.disabled_at,
          i.disabled_reason,
          i.description,
          i.form_id,
          signingSecret,
          i.secret_hint,
          i.created_at,
          i.updated_at,
          JSON.stringify(i.metadata),
        );
      });
    },

    async update({ integration: i, workspaceId }, options = {}) {
      transaction(db, 'deferred', () => {
        // Only a form the update names anew is checked: an integration outlives the form it was limited to.
        if (i.form_id !== integrationRow(i.id)?.form_id) assertFormOwned(i.form_id, workspaceId);
        if (options.expectedTag !== undefined) {
          const row = statement(db, 'SELECT * FROM integrations WHERE id = ?').get(i.id) as IntegrationRow | undefined;
          assertTagUnchanged(row, toIntegration, options.expectedTag, { kind: 'integration', id: i.id });
        }
        statement(
          db,
          `UPDATE integrations SET url = ?, events = ?, enabled = ?, disabled_at = ?, disabled_reason = ?, description = ?, form_id = ?,
             updated_at = ?, metadata = ?
           WHERE id = ?`,
        ).run(
          i.url,
          JSON.stringify(i.events),
          i.enabled ? 1 : 0,
          i.disabled_at,
          i.disabled_reason,
          i.description,
          i.form_id,
          i.updated_at,
          JSON.stringify(i.metadata),
          i.id,
        );
        if (options.resetCircuit)
          statement(db, 'UPDATE integrations SET consecutive_failures = 0, failing_since = NULL, paused_until = NULL WHERE id = ?').run(
            i.id,
          );
        if (options.audit) insertAuditEvent(db, options.audit);
      });
    },

    async delete(id, audit, options = {}) {
      transaction(db, 'deferred', () => {
        if (options.expectedTag !== undefined) {
          const row = statement(db, 'SELECT * FROM integrations WHERE id = ?').get(id) as IntegrationRow | undefined;
          assertTagUnchanged(row, toIntegration, options.expectedTag, { kind: 'integration', id });
        }
        statement(db, 'DELETE FROM deliveries WHERE integration_id = ?').run(id);
        statement(db, 'DELETE FROM integrations WHERE id = ?').run(id);
        insertAuditEvent(db, audit);
      });
    },

    async rotateSecret(id, { secret, hint, previousExpiresAt, at }, audit, outbox) {
      return withOutbox(db, outbox, () => {
        // One statement reads the current secret and replaces it, so two concurrent rotations cannot both keep it.
        const row = statement(
          db,
          `UPDATE integrations SET
             previous_signing_secret = CASE WHEN ? IS NULL THEN NULL ELSE signing_secret END,
             previous_secret_expires_at = ?,
             signing_secret = ?, secret_hint = ?, updated_at = ?
           WHERE id = ? RETURNING *`,
        ).get(previousExpiresAt, previousExpiresAt, secret, hint, at, id) as IntegrationRow | undefined;
        if (!row) throw new RecordNotFound('integration', id);
        insertAuditEvent(db, audit);
        return toIntegrationRecord(row);
      });
    },

    async purgeExpiredSecrets(now) {
      return statement(
        db,
        `UPDATE integrations SET previous_signing_secret = NULL, previous_secret_expires_at = NULL
         WHERE previous_secret_expires_at IS NOT NULL AND previous_secret_expires_at <= ?`,
      ).run(now).changes;
    },

    async publish(event, subscribers) {
      return transaction(db, 'immediate', () => insertEventsForSubscribers(db, [{ event, subscribers }]));
    },

    async dispatch(integrationId, event, { newEvent, mock, at }, outbox) {
      return withOutbox(db, outbox, () => {
        const integration = statement(db, 'SELECT id, url FROM integrations WHERE id = ?').get(integrationId) as
          | { id: string; url: string }
          | undefined;
        if (!integration) throw new RecordNotFound('integration', integrationId);
        if (newEvent) insertEvent(db, event);
        return toLog(queueFirstAttempt(db, integration, event, at, mock, true));
      });
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

    async claimDue({ now, leaseUntil, limit, perIntegration, perWorkspace }) {
      return transaction(db, 'immediate', () => {
        // In flight = leased and not yet recorded, by any worker. Candidates are numbered per integration (its
        // earliest first) and kept within the integration's free slots (one while its breaker probes), then
        // numbered per workspace and kept within the workspace's; ordering by that number lets workspaces take
        // turns, so a backlog in one never sits in front of another's first attempt.
        const rows = statement(
          db,
          `WITH busy AS (
               SELECT integration_id, workspace_id, COUNT(*) AS n FROM deliveries
               WHERE status = 'pending' AND lease_until > :now GROUP BY integration_id, workspace_id
             ),
             busy_workspaces AS (SELECT workspace_id, SUM(n) AS n FROM busy GROUP BY workspace_id),
             candidates AS (
               SELECT d.id, d.workspace_id, d.integration_id, d.due_at,
                 ROW_NUMBER() OVER (PARTITION BY d.integration_id ORDER BY d.due_at, d.id) AS integration_turn,
                 CASE WHEN i.paused_until IS NULL THEN :perIntegration ELSE 1 END AS integration_cap
               FROM deliveries d JOIN integrations i ON i.id = d.integration_id
               WHERE d.status = 'pending' AND d.due_at <= :now AND (d.lease_until IS NULL OR d.lease_until <= :now)
                 AND (d.dispatched = 1 OR (i.enabled = 1 AND (i.paused_until IS NULL OR i.paused_until <= :now)))
             ),
             within_integration AS (
               SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.workspace_id ORDER BY c.integration_turn, c.due_at, c.id) AS workspace_turn
               FROM candidates c LEFT JOIN busy b ON b.integration_id = c.integration_id
               WHERE c.integration_turn + COALESCE(b.n, 0) <= c.integration_cap
             )
             SELECT d.id, d.attempt, d.mock, i.id AS integration_id, i.workspace_id, i.url, i.signing_secret,
               i.previous_signing_secret, i.previous_secret_expires_at, e.id AS event_id, e.type AS event_type, e.body, e.synthetic
             FROM within_integration w
             LEFT JOIN busy_workspaces bw ON bw.workspace_id = w.workspace_id
             JOIN deliveries d ON d.id = w.id
             JOIN integrations i ON i.id = d.integration_id
             JOIN events e ON e.id = d.event_id
             WHERE w.workspace_turn + COALESCE(bw.n, 0) <= :perWorkspace
             ORDER BY w.workspace_turn, w.due_at, w.id
             LIMIT :limit`,
        ).all({ now, perIntegration, perWorkspace, limit }) as DueDeliveryRow[];
        const lease = statement(db, 'UPDATE deliveries SET lease_until = ? WHERE id = ?');
        for (const row of rows) lease.run(leaseUntil, row.id);
        return rows.map(toDueDelivery);
      });
    },

    async recordAttempt(id, result, circuit) {
      return transaction(db, 'immediate', (): CircuitMove | null => {
        const changed = statement(
          db,
          `UPDATE deliveries SET status = ?, url = ?, response_status = ?, duration_ms = ?, error = ?, next_attempt_at = ?,
             lease_until = NULL
             WHERE id = ? AND status = 'pending'`,
        ).run(result.status, result.url, result.responseStatus, result.durationMs, result.error, result.nextAttemptAt, id).changes;
        if (changed === 0) return null;
        countDeliveryAttempt(db, id);
        const row = statement(db, 'SELECT * FROM deliveries WHERE id = ?').get(id) as DeliveryRow;
        if (result.nextAttemptAt !== null) queueRetry(row, result.nextAttemptAt);
        return circuit ? moveCircuit(row.integration_id, circuit) : null;
      });
    },
  };
}
