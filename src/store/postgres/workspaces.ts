import type pg from 'pg';
import { toWorkspace, type WorkspaceRow } from '../rows/workspaces.js';
import type { WorkspaceStore } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { inTransaction, one, run } from './database.js';

export function postgresWorkspaces(pool: pg.Pool): WorkspaceStore {
  return {
    async create(workspace) {
      await run(pool, 'INSERT INTO workspaces (id, name, plan, created_at) VALUES ($1, $2, $3, $4)', [
        workspace.id,
        workspace.name,
        workspace.plan,
        workspace.createdAt,
      ]);
    },
    async get(id) {
      const row = await one<WorkspaceRow>(pool, 'SELECT * FROM workspaces WHERE id = $1', [id]);
      return row && toWorkspace(row);
    },
    async setRateLimits(id, limits, audit) {
      return inTransaction(pool, async (client) => {
        const row = await one<WorkspaceRow>(
          client,
          `UPDATE workspaces SET rate_limit_per_key_per_second = $1, rate_limit_per_workspace_per_minute = $2 WHERE id = $3
           RETURNING *`,
          [limits?.perKeyPerSecond ?? null, limits?.perWorkspacePerMinute ?? null, id],
        );
        if (!row) return undefined;
        await insertAuditEvent(client, audit);
        return toWorkspace(row);
      });
    },
  };
}
