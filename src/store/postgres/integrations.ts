import type pg from 'pg';
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
import { advisoryLocks } from './advisory-locks.js';
import { insertAuditEvent } from './audit-events.js';
import { all, inTransaction, one, Parameters, type Queryable, run } from './database.js';
import { insertDelivery, insertEvent, insertEventsForSubscribers, queueFirstAttempt, withOutbox, writeOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { countDeliveryAttempt } from './usage.js';

/**
 * Statements run inside a form's deletion (parameter: the form id); see the SQLite store for why
 * integrations limited to the form are kept and what goes with the form's submissions.
 */
export const integrationFormCascade: string[] = [
  `DELETE FROM deliveries WHERE status = 'pending' AND event_id IN (SELECT id FROM events WHERE form_id = $1 AND type LIKE 'submission.%')`,
  `DELETE FROM events WHERE form_id = $1 AND type LIKE 'submission.%'`,
];

/** Test-mode rows of a workspace (parameter: workspace id), with the count they report. */
export const integrationTestData: Array<{ counts: 'integrations' | 'integration_logs' | null; sql: string }> = [
  { counts: 'integration_logs', sql: `DELETE FROM deliveries WHERE workspace_id = $1 AND environment = 'test'` },
  { counts: null, sql: `DELETE FROM events WHERE workspace_id = $1 AND environment = 'test'` },
  { counts: 'integrations', sql: `DELETE FROM integrations WHERE workspace_id = $1 AND environment = 'test'` },
];

const claimLock = advisoryLocks.deliveryClaims;

/**
 * Runs inside recordAttempt's transaction: the integration's row is locked, so attempts of one integration
 * recorded by two processes move its breaker one after the other, and the move and what it causes commit with
 * the attempt.
 */
async function moveCircuit(db: Queryable, integrationId: string, circuit: CircuitUpdate): Promise<CircuitMove | null> {
  const current = await one<IntegrationRow>(db, 'SELECT * FROM integrations WHERE id = $1 FOR NO KEY UPDATE', [integrationId]);
  if (!current) return null;
  const before = toCircuit(current);
  const after = circuit.next(before);
  const updated = await one<IntegrationRow>(
    db,
    `UPDATE integrations SET consecutive_failures = $1, failing_since = $2, paused_until = $3, enabled = $4, disabled_at = $5,
       disabled_reason = $6, updated_at = $7
     WHERE id = $8 RETURNING *`,
    [
      after.consecutiveFailures,
      after.failingSince,
      after.pausedUntil,
      after.enabled,
      after.disabledAt,
      after.disabledReason,
      after.updatedAt,
      integrationId,
    ],
  );
  const move: CircuitMove = { before, after, integration: toIntegrationRecord(updated!) };
  if (circuit.outbox) await writeOutbox(db, circuit.outbox(move));
  return move;
}

/**
 * An integration is limited to a form of its own workspace. The form's row is held shared until the write commits,
 * so a transfer's accept or a delete (which lock it) comes wholly before, and the form is then not found, or after.
 */
async function assertFormOwned(client: Queryable, formId: string | null, workspaceId: string): Promise<void> {
  if (formId !== null && !(await one(client, 'SELECT 1 FROM forms WHERE id = $1 AND workspace_id = $2 FOR SHARE', [formId, workspaceId])))
    throw new RecordNotFound('form', formId);
}

export function postgresIntegrations(pool: pg.Pool): IntegrationStore {
  return {
    async list(visibility, page) {
      const { environments, attachment } = visibility;
      const params = new Parameters();
      const where = [`i.workspace_id = ${params.add(visibility.workspaceId)}`, `i.environment = ANY(${params.add(environments)}::text[])`];
      // Attached keys see the integrations of the forms they reach, never the workspace-wide ones.
      if (attachment.type === 'form') where.push(`i.form_id = ${params.add(attachment.form_id)}`);
      else if (attachment.type === 'folder')
        where.push(`i.form_id IN (SELECT f.id FROM forms f WHERE f.folder_id = ${params.add(attachment.folder_id)})`);
      const result = await keysetPage<IntegrationRow>(pool, {
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
      const row = await one<IntegrationRow>(pool, 'SELECT * FROM integrations WHERE id = $1 AND workspace_id = $2', [id, workspaceId]);
      return row && toIntegrationRecord(row);
    },

    async create({ integration: i, workspaceId, environment, signingSecret }, audit, outbox) {
      await withOutbox(pool, outbox, async (client) => {
        await assertFormOwned(client, i.form_id, workspaceId);
        await insertAuditEvent(client, audit);
        await run(
          client,
          `INSERT INTO integrations (id, workspace_id, environment, url, events, enabled, description, form_id, signing_secret, secret_hint,
           created_at, updated_at, metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
          [
            i.id,
            workspaceId,
            environment,
            i.url,
            JSON.stringify(i.events),
            i.enabled,
            i.description,
            i.form_id,
            signingSecret,
            i.secret_hint,
            i.created_at,
            i.updated_at,
            JSON.stringify(i.metadata),
          ],
        );
      });
    },

    async update({ integration: i, workspaceId }, options = {}) {
      await inTransaction(pool, async (client) => {
        // Only a form the update names anew is checked: an integration outlives the form it was limited to. The form
        // is locked before the integration, the order of the test-data reset (forms, then integrations), so the two
        // queue instead of deadlocking; the read that tells whether the form is new is taken again under the lock.
        const before = await one<{ form_id: string | null }>(client, 'SELECT form_id FROM integrations WHERE id = $1', [i.id]);
        const checked = before !== undefined && i.form_id !== before.form_id;
        if (checked) await assertFormOwned(client, i.form_id, workspaceId);
        // NO KEY: the edit changes no key, so writers holding the row for their deliveries (FOR KEY SHARE) go on.
        const row = await one<IntegrationRow>(client, 'SELECT * FROM integrations WHERE id = $1 FOR NO KEY UPDATE', [i.id]);
        assertTagUnchanged(row, toIntegration, options.expectedTag, { kind: 'integration', id: i.id });
        if (!checked && i.form_id !== row?.form_id) await assertFormOwned(client, i.form_id, workspaceId);
        await run(
          client,
          `UPDATE integrations SET url = $1, events = $2, enabled = $3, disabled_at = $4, disabled_reason = $5, description = $6, form_id = $7,
             updated_at = $8, metadata = $9
           WHERE id = $10`,
          [
            ...[i.url, JSON.stringify(i.events), i.enabled, i.disabled_at, i.disabled_reason, i.description, i.form_id, i.updated_at],
            JSON.stringify(i.metadata),
            i.id,
          ],
        );
        if (options.resetCircuit)
          await run(client, 'UPDATE integrations SET consecutive_failures = 0, failing_since = NULL, paused_until = NULL WHERE id = $1', [
            i.id,
          ]);
        if (options.audit) await insertAuditEvent(client, options.audit);
      });
    },

    async delete(id, audit, options = {}) {
      await inTransaction(pool, async (client) => {
        if (options.expectedTag !== undefined) {
          const row = await one<IntegrationRow>(client, 'SELECT * FROM integrations WHERE id = $1 FOR UPDATE', [id]);
          assertTagUnchanged(row, toIntegration, options.expectedTag, { kind: 'integration', id });
        }
        await run(client, 'DELETE FROM deliveries WHERE integration_id = $1', [id]);
        await run(client, 'DELETE FROM integrations WHERE id = $1', [id]);
        await insertAuditEvent(client, audit);
      });
    },

    async rotateSecret(id, { secret, hint, previousExpiresAt, at }, audit, outbox) {
      return withOutbox(pool, outbox, async (client) => {
        // The row lock orders concurrent rotations: each keeps the secret the one before it made current.
        const row = await one<IntegrationRow>(
          client,
          `UPDATE integrations SET
             previous_signing_secret = CASE WHEN $1::timestamptz IS NULL THEN NULL ELSE signing_secret END,
             previous_secret_expires_at = $1::timestamptz,
             signing_secret = $2, secret_hint = $3, updated_at = $4
           WHERE id = $5 RETURNING *`,
          [previousExpiresAt, secret, hint, at, id],
        );
        if (!row) throw new RecordNotFound('integration', id);
        await insertAuditEvent(client, audit);
        return toIntegrationRecord(row);
      });
    },

    async purgeExpiredSecrets(now) {
      return run(
        pool,
        `UPDATE integrations SET previous_signing_secret = NULL, previous_secret_expires_at = NULL
         WHERE previous_secret_expires_at IS NOT NULL AND previous_secret_expires_at <= $1`,
        [now],
      );
    },

    async publish(event, subscribers) {
      return inTransaction(pool, (client) => insertEventsForSubscribers(client, [{ event, subscribers }]));
    },

    async dispatch(integrationId, event, { newEvent, mock, at }, outbox) {
      return withOutbox(pool, outbox, async (client) => {
        // FOR KEY SHARE, as the delivery's foreign key: the integration cannot be deleted before the row is committed.
        const integration = await one<{ id: string; url: string }>(client, 'SELECT id, url FROM integrations WHERE id = $1 FOR KEY SHARE', [
          integrationId,
        ]);
        if (!integration) throw new RecordNotFound('integration', integrationId);
        if (newEvent) await insertEvent(client, event);
        return toLog(await queueFirstAttempt(client, integration, event, at, mock, true));
      });
    },

    async listLogs(integrationId, environment, filter, page) {
      const params = new Parameters();
      const where = [`d.integration_id = ${params.add(integrationId)}`, `d.environment = ${params.add(environment)}`];
      if (filter.status !== undefined) where.push(`d.status = ${params.add(filter.status)}`);
      if (filter.eventType !== undefined) where.push(`d.event_type = ${params.add(filter.eventType)}`);
      const result = await keysetPage<DeliveryRow>(pool, {
        from: 'deliveries d',
        alias: 'd',
        select: 'd.*',
        where: where.join(' AND '),
        params,
        page,
      });
      return { data: result.data.map(toLog), hasMore: result.hasMore };
    },

    /**
     * The caps count the leases of every worker, so claims take turns across processes: a transaction-scoped
     * advisory lock serialises them (each is a few milliseconds), and each one then sees the leases the previous
     * one committed. The candidates are chosen as in the SQLite store (integrations, then workspaces, take turns
     * within their in-flight caps); `FOR UPDATE SKIP LOCKED` then leaves out any row an attempt's outcome is being
     * recorded for, and re-checks the lease of the rows it locks, so no delivery is ever leased twice.
     */
    async claimDue({ now, leaseUntil, limit, perIntegration, perWorkspace }) {
      return inTransaction(pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [claimLock]);
        const chosen = await all<{ id: string }>(
          client,
          `WITH busy AS (
             SELECT integration_id, workspace_id, COUNT(*) AS n FROM deliveries
             WHERE status = 'pending' AND lease_until > $1 GROUP BY integration_id, workspace_id
           ),
           busy_workspaces AS (SELECT workspace_id, SUM(n) AS n FROM busy GROUP BY workspace_id),
           candidates AS (
             SELECT d.id, d.workspace_id, d.integration_id, d.due_at,
               ROW_NUMBER() OVER (PARTITION BY d.integration_id ORDER BY d.due_at, d.id) AS integration_turn,
               CASE WHEN i.paused_until IS NULL THEN $2 ELSE 1 END AS integration_cap
             FROM deliveries d JOIN integrations i ON i.id = d.integration_id
             WHERE d.status = 'pending' AND d.due_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
               AND (d.dispatched OR (i.enabled AND (i.paused_until IS NULL OR i.paused_until <= $1)))
           ),
           within_integration AS (
             SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.workspace_id ORDER BY c.integration_turn, c.due_at, c.id) AS workspace_turn
             FROM candidates c LEFT JOIN busy b ON b.integration_id = c.integration_id
             WHERE c.integration_turn + COALESCE(b.n, 0) <= c.integration_cap
           )
           SELECT w.id FROM within_integration w
           LEFT JOIN busy_workspaces bw ON bw.workspace_id = w.workspace_id
           WHERE w.workspace_turn + COALESCE(bw.n, 0) <= $3
           ORDER BY w.workspace_turn, w.due_at, w.id
           LIMIT $4`,
          [now, perIntegration, perWorkspace, limit],
        );
        if (chosen.length === 0) return [];
        const ids = chosen.map((row) => row.id);
        const locked = await all<{ id: string }>(
          client,
          `SELECT id FROM deliveries WHERE id = ANY($1::text[]) AND status = 'pending' AND (lease_until IS NULL OR lease_until <= $2)
           FOR UPDATE SKIP LOCKED`,
          [ids, now],
        );
        if (locked.length === 0) return [];
        await run(client, 'UPDATE deliveries SET lease_until = $1 WHERE id = ANY($2::text[])', [leaseUntil, locked.map((row) => row.id)]);
        const rows = await all<DueDeliveryRow>(
          client,
          `SELECT d.id, d.attempt, d.mock, i.id AS integration_id, i.workspace_id, i.url, i.signing_secret, i.previous_signing_secret, i.previous_secret_expires_at,
             e.id AS event_id, e.type AS event_type, e.body, e.synthetic
           FROM deliveries d JOIN integrations i ON i.id = d.integration_id JOIN events e ON e.id = d.event_id
           WHERE d.id = ANY($1::text[])`,
          [locked.map((row) => row.id)],
        );
        // In the order the turns gave.
        const byId = new Map(rows.map((row) => [row.id, row]));
        return ids.flatMap((id) => (byId.has(id) ? [toDueDelivery(byId.get(id)!)] : []));
      });
    },

    async recordAttempt(id, result, circuit) {
      return inTransaction(pool, async (client): Promise<CircuitMove | null> => {
        // The integration before its delivery, as its delete and the test-data reset lock them: with the delivery
        // locked first, a delete that holds the integration and then deletes its deliveries would deadlock with this.
        // Held for the next attempt's foreign key, or for the breaker's move.
        if (circuit || result.nextAttemptAt !== null) {
          await run(
            client,
            `SELECT 1 FROM integrations WHERE id = (SELECT integration_id FROM deliveries WHERE id = $1) ${
              circuit ? 'FOR NO KEY UPDATE' : 'FOR KEY SHARE'
            }`,
            [id],
          );
        }
        const row = await one<DeliveryRow>(
          client,
          `UPDATE deliveries SET status = $1, url = $2, response_status = $3, duration_ms = $4, error = $5, next_attempt_at = $6, lease_until = NULL
           WHERE id = $7 AND status = 'pending' RETURNING *`,
          [result.status, result.url, result.responseStatus, result.durationMs, result.error, result.nextAttemptAt, id],
        );
        if (!row) return null;
        if (result.nextAttemptAt !== null) await insertDelivery(client, nextAttempt(row, newId('dlv'), result.nextAttemptAt));
        const move = circuit ? await moveCircuit(client, row.integration_id, circuit) : null;
        // Last: the month's counter row stays locked until commit, and every attempt of the workspace adds to it.
        await countDeliveryAttempt(client, row.id);
        return move;
      });
    },
  };
}
