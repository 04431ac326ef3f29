import type pg from 'pg';
import type { UsageStore } from '../usage-store.js';
import { pendingUsageSubmissions } from './aggregate-deltas.js';
import { inTransaction, one, type Queryable, run } from './database.js';

/**
 * Counts a delivery attempt just recorded, if it was to a live integration, into the month it was due, in the
 * transaction recording it, so deleting the integration (and its log) later changes nothing.
 */
export async function countDeliveryAttempt(db: Queryable, deliveryId: string): Promise<void> {
  await run(
    db,
    `INSERT INTO usage_counters (workspace_id, month, webhook_deliveries)
     SELECT workspace_id, to_char(due_at AT TIME ZONE 'UTC', 'YYYY-MM'), 1 FROM deliveries WHERE id = $1 AND environment = 'live'
     ON CONFLICT (workspace_id, month) DO UPDATE SET webhook_deliveries = usage_counters.webhook_deliveries + 1`,
    [deliveryId],
  );
}

export function postgresUsage(pool: pg.Pool): UsageStore {
  return {
    async addApiRequests(counts) {
      if (counts.length === 0) return;
      await inTransaction(pool, async (client) => {
        // In a fixed order, so that two servers flushing the same workspaces never wait on each other in a cycle. The
        // bytes' order, not `localeCompare`'s: that one follows each server's locale, and two servers could differ.
        const key = (entry: { workspaceId: string; month: string }) => `${entry.workspaceId} ${entry.month}`;
        const ordered = [...counts].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
        for (const { workspaceId, month, count } of ordered) {
          await run(
            client,
            `INSERT INTO usage_counters (workspace_id, month, api_requests) VALUES ($1, $2, $3)
             ON CONFLICT (workspace_id, month) DO UPDATE SET api_requests = usage_counters.api_requests + EXCLUDED.api_requests`,
            [workspaceId, month, count],
          );
        }
      });
    },
    async figures(workspaceId, { month }) {
      // Submissions counted but not yet folded into the month's row are added in the same statement (one snapshot).
      const row = await one<{ api_requests: number | null; submissions: number; webhook_deliveries: number | null }>(
        pool,
        `SELECT c.api_requests, COALESCE(c.submissions, 0) + (${pendingUsageSubmissions}) AS submissions, c.webhook_deliveries
         FROM (SELECT 1) AS one LEFT JOIN usage_counters c ON c.workspace_id = $1 AND c.month = $2`,
        [workspaceId, month],
      );
      return { apiRequests: row?.api_requests ?? 0, submissions: row?.submissions ?? 0, webhookDeliveries: row?.webhook_deliveries ?? 0 };
    },
  };
}
