import type pg from 'pg';
import type { Environment } from '../../contract.js';
import { newId } from '../../ids.js';
import { RecordNotFound } from '../errors.js';
import type { IntegrationStore } from '../integration-store.js';
import {
  type DeliveryRow,
  type DueDeliveryRow,
  type EventRow,
  type IntegrationRow,
  nextAttempt,
  toDueDelivery,
  toEvent,
  toIntegration,
  toIntegrationRecord,
  toLog,
} from '../rows/integrations.js';
import { all, inTransaction, one, Parameters, type Queryable, run } from './database.js';
import { insertDelivery, insertEvent, insertEventForSubscribers, queueFirstAttempt, withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';

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

    async create({ integration: i, workspaceId, environment, signingSecret }, outbox) {
      await withOutbox(pool, outbox, async (client) => {
        await run(
          client,
          `INSERT INTO integrations (id, workspace_id, environment, url, events, enabled, description, form_id, signing_secret, secret_hint, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
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
          ],
        );
      });
    },

    async update({ integration: i }) {
      await run(
        pool,
        'UPDATE integrations SET url = $1, events = $2, enabled = $3, description = $4, form_id = $5, updated_at = $6 WHERE id = $7',
        [i.url, JSON.stringify(i.events), i.enabled, i.description, i.form_id, i.updated_at, i.id],
      );
    },

    async delete(id) {
      await inTransaction(pool, async (client) => {
        await run(client, 'DELETE FROM deliveries WHERE integration_id = $1', [id]);
        await run(client, 'DELETE FROM integrations WHERE id = $1', [id]);
      });
    },

    async publish(event, subscribers) {
      return inTransaction(pool, (client) => insertEventForSubscribers(client, event, subscribers));
    },

    async getEvent(workspaceId, environment, id) {
      const row = await one<EventRow>(pool, 'SELECT * FROM events WHERE id = $1 AND workspace_id = $2 AND environment = $3', [
        id,
        workspaceId,
        environment,
      ]);
      return row && toEvent(row);
    },

    async dispatch(integrationId, event, { newEvent, mock, at }, outbox) {
      return withOutbox(pool, outbox, async (client) => {
        // FOR SHARE: the integration cannot be deleted before its new delivery row is committed.
        const integration = await one<{ id: string; url: string }>(client, 'SELECT id, url FROM integrations WHERE id = $1 FOR SHARE', [
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
     * FOR UPDATE SKIP LOCKED: a worker in another process claiming at the same moment skips the rows this one
     * is leasing instead of waiting for them, and re-checks the lease of any row it does lock, so no delivery
     * is leased twice. The lease outlives the transaction; a crashed worker's lease runs out.
     */
    async claimDue(now, leaseUntil, limit) {
      return inTransaction(pool, async (client) => {
        const rows = await all<DueDeliveryRow>(
          client,
          `SELECT d.id, d.attempt, d.mock, i.id AS integration_id, i.url, i.signing_secret, e.id AS event_id, e.type AS event_type, e.body
           FROM deliveries d
           JOIN integrations i ON i.id = d.integration_id
           JOIN events e ON e.id = d.event_id
           WHERE d.status = 'pending' AND d.due_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1) AND (i.enabled OR d.dispatched)
           ORDER BY d.due_at, d.id
           LIMIT $2
           FOR UPDATE OF d SKIP LOCKED`,
          [now, limit],
        );
        if (rows.length > 0)
          await run(client, 'UPDATE deliveries SET lease_until = $1 WHERE id = ANY($2::text[])', [leaseUntil, rows.map((row) => row.id)]);
        return rows.map(toDueDelivery);
      });
    },

    async recordAttempt(id, result) {
      await inTransaction(pool, async (client) => {
        const row = await one<DeliveryRow>(
          client,
          `UPDATE deliveries SET status = $1, url = $2, response_status = $3, duration_ms = $4, error = $5, next_attempt_at = $6, lease_until = NULL
           WHERE id = $7 AND status = 'pending' RETURNING *`,
          [result.status, result.url, result.responseStatus, result.durationMs, result.error, result.nextAttemptAt, id],
        );
        if (!row || result.nextAttemptAt === null) return;
        await insertDelivery(client, nextAttempt(row, newId('dlv'), result.nextAttemptAt));
      });
    },
  };
}
