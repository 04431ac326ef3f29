import type Database from 'better-sqlite3';
import type { UsageStore } from '../usage-store.js';
import { statement, transaction } from './statements.js';

/**
 * Counts a delivery attempt just recorded, if it was to a live integration, into the month it was due; the
 * caller's transaction is the one recording it, so deleting the integration (and its log) later changes nothing.
 */
export function countDeliveryAttempt(db: Database.Database, deliveryId: string): void {
  statement(
    db,
    `INSERT INTO usage_counters (workspace_id, month, webhook_deliveries)
     SELECT workspace_id, substr(due_at, 1, 7), 1 FROM deliveries WHERE id = ? AND environment = 'live'
     ON CONFLICT (workspace_id, month) DO UPDATE SET webhook_deliveries = webhook_deliveries + 1`,
  ).run(deliveryId);
}

export function sqliteUsage(db: Database.Database): UsageStore {
  return {
    async addApiRequests(counts) {
      transaction(db, 'deferred', () => {
        for (const { workspaceId, month, count } of counts) {
          statement(
            db,
            `INSERT INTO usage_counters (workspace_id, month, api_requests) VALUES (?, ?, ?)
             ON CONFLICT (workspace_id, month) DO UPDATE SET api_requests = api_requests + excluded.api_requests`,
          ).run(workspaceId, month, count);
        }
      });
    },
    async figures(workspaceId, { month }) {
      const row = statement(
        db,
        'SELECT api_requests, submissions, webhook_deliveries FROM usage_counters WHERE workspace_id = ? AND month = ?',
      ).get(workspaceId, month) as { api_requests: number; submissions: number; webhook_deliveries: number } | undefined;
      return { apiRequests: row?.api_requests ?? 0, submissions: row?.submissions ?? 0, webhookDeliveries: row?.webhook_deliveries ?? 0 };
    },
  };
}
