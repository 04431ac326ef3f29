import type pg from 'pg';
import type { UsageStore } from '../usage-store.js';
import { inTransaction, one, type Queryable, run } from './database.js';

/**
 * Counts one live submission into its workspace's month, in the caller's transaction (the submission's insert), so
 * deleting or erasing the row later leaves the month as it was. Run it last: the counter row stays locked until commit.
 */
export async function countSubmission(db: Queryable, workspaceId: string, month: string): Promise<void> {
  await run(
    db,
    `INSERT INTO usage_counters (workspace_id, month, submissions) VALUES ($1, $2, 1)
     ON CONFLICT (workspace_id, month) DO UPDATE SET submissions = usage_counters.submissions + 1`,
    [workspaceId, month],
  );
}

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
      const row = await one<{ api_requests: number; submissions: number; webhook_deliveries: number }>(
        pool,
        'SELECT api_requests, submissions, webhook_deliveries FROM usage_counters WHERE workspace_id = $1 AND month = $2',
        [workspaceId, month],
      );
      return { apiRequests: row?.api_requests ?? 0, submissions: row?.submissions ?? 0, webhookDeliveries: row?.webhook_deliveries ?? 0 };
    },
  };
}
