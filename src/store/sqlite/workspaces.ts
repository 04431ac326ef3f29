import type Database from 'better-sqlite3';
import { toWorkspace, type WorkspaceRow } from '../rows/workspaces.js';
import { rateLimitParameters, workspaceSql } from '../sql/workspaces.js';
import type { WorkspaceStore } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { prepared } from './shared-sql.js';
import { transaction } from './statements.js';

export function sqliteWorkspaces(db: Database.Database): WorkspaceStore {
  return {
    async create(workspace) {
      prepared(db, workspaceSql.insert).run(workspace);
    },
    async get(id) {
      const row = prepared(db, workspaceSql.get).get({ id }) as WorkspaceRow | undefined;
      return row && toWorkspace(row);
    },
    async setRateLimits(id, limits, audit) {
      return transaction(db, 'deferred', () => {
        const row = prepared(db, workspaceSql.setRateLimits).get(rateLimitParameters(id, limits)) as WorkspaceRow | undefined;
        if (!row) return undefined;
        insertAuditEvent(db, audit);
        return toWorkspace(row);
      });
    },
  };
}
