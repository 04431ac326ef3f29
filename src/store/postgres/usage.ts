import type pg from 'pg';
import type { UsageStore } from '../usage-store.js';
import { inTransaction, one, run } from './database.js';

export function postgresUsage(pool: pg.Pool): UsageStore {
  const count = async (sql: string, params: unknown[]) => (await one<{ n: number | null }>(pool, sql, params))?.n ?? 0;
  return {
    async addApiRequests(counts) {
      if (counts.length === 0) return;
      await inTransaction(pool, async (client) => {
        // In a fixed order, so that two servers flushing the same workspaces never wait on each other in a cycle.
        const ordered = [...counts].sort((a, b) => `${a.workspaceId}${a.month}`.localeCompare(`${b.workspaceId}${b.month}`));
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
    async figures(workspaceId, { month, start, end }) {
      const [apiRequests, submissions, webhookDeliveries] = await Promise.all([
        count('SELECT api_requests AS n FROM usage_counters WHERE workspace_id = $1 AND month = $2', [workspaceId, month]),
        count(
          `SELECT COUNT(*) AS n FROM submissions
           WHERE workspace_id = $1 AND environment = 'live' AND created_at >= $2 AND created_at < $3`,
          [workspaceId, start, end],
        ),
        count(
          `SELECT COUNT(*) AS n FROM deliveries
           WHERE workspace_id = $1 AND environment = 'live' AND created_at >= $2 AND created_at < $3 AND status <> 'pending'`,
          [workspaceId, start, end],
        ),
      ]);
      return { apiRequests, submissions, webhookDeliveries };
    },
  };
}
