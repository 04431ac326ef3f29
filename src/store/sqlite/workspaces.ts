import type Database from 'better-sqlite3';
import { toWorkspace, type WorkspaceRow } from '../rows/workspaces.js';
import type { WorkspaceStore } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { statement, transaction } from './statements.js';

export function sqliteWorkspaces(db: Database.Database): WorkspaceStore {
  const get = (id: string) => {
    const row = statement(db, 'SELECT * FROM workspaces WHERE id = ?').get(id) as WorkspaceRow | undefined;
    return row && toWorkspace(row);
  };
  return {
    async create(workspace) {
      statement(db, 'INSERT INTO workspaces (id, name, plan, created_at) VALUES (?, ?, ?, ?)').run(
        workspace.id,
        workspace.name,
        workspace.plan,
        workspace.createdAt,
      );
    },
    async get(id) {
      return get(id);
    },
    async setRateLimits(id, limits, audit) {
      return transaction(db, 'deferred', () => {
        const changed = statement(
          db,
          'UPDATE workspaces SET rate_limit_per_key_per_second = ?, rate_limit_per_workspace_per_minute = ? WHERE id = ?',
        ).run(limits?.perKeyPerSecond ?? null, limits?.perWorkspacePerMinute ?? null, id).changes;
        if (changed === 0) return undefined;
        insertAuditEvent(db, audit);
        return get(id);
      });
    },
  };
}
