import type pg from 'pg';
import { toWorkspace, type WorkspaceRow } from '../rows/workspaces.js';
import { rateLimitParameters, workspaceSql } from '../sql/workspaces.js';
import type { WorkspaceStore } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { inTransaction, one, run } from './database.js';

export function postgresWorkspaces(pool: pg.Pool): WorkspaceStore {
  return {
    async create(workspace) {
      await run(pool, ...workspaceSql.insert.bindPostgres(workspace));
    },
    async get(id) {
      const row = await one<WorkspaceRow>(pool, ...workspaceSql.get.bindPostgres({ id }));
      return row && toWorkspace(row);
    },
    async setRateLimits(id, limits, audit) {
      return inTransaction(pool, async (client) => {
        const row = await one<WorkspaceRow>(client, ...workspaceSql.setRateLimits.bindPostgres(rateLimitParameters(id, limits)));
        if (!row) return undefined;
        await insertAuditEvent(client, audit);
        return toWorkspace(row);
      });
    },
  };
}
