import type Database from 'better-sqlite3';
import type { UsageStore } from '../usage-store.js';
import { statement } from './statements.js';

export function sqliteUsage(db: Database.Database): UsageStore {
  return {
    async addApiRequests(counts) {
      db.transaction(() => {
        for (const { workspaceId, month, count } of counts) {
          statement(
            db,
            `INSERT INTO usage_counters (workspace_id, month, api_requests) VALUES (?, ?, ?)
             ON CONFLICT (workspace_id, month) DO UPDATE SET api_requests = api_requests + excluded.api_requests`,
          ).run(workspaceId, month, count);
        }
      })();
    },
    async figures(workspaceId, { month, start, end }) {
      const count = (sql: string, ...params: unknown[]) => (statement(db, sql).get(...params) as { n: number | null } | undefined)?.n ?? 0;
      return {
        apiRequests: count('SELECT api_requests AS n FROM usage_counters WHERE workspace_id = ? AND month = ?', workspaceId, month),
        submissions: count(
          `SELECT COUNT(*) AS n FROM submissions
           WHERE workspace_id = ? AND environment = 'live' AND created_at >= ? AND created_at < ?`,
          workspaceId,
          start,
          end,
        ),
        webhookDeliveries: count(
          `SELECT COUNT(*) AS n FROM deliveries
           WHERE workspace_id = ? AND environment = 'live' AND created_at >= ? AND created_at < ? AND status <> 'pending'`,
          workspaceId,
          start,
          end,
        ),
      };
    },
  };
}
