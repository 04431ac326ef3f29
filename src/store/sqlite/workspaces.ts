import type Database from 'better-sqlite3';
import { toWorkspace, type WorkspaceRow } from '../rows/workspaces.js';
import type { WorkspaceStore } from '../types.js';
import { statement } from './statements.js';

export function sqliteWorkspaces(db: Database.Database): WorkspaceStore {
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
      const row = statement(db, 'SELECT * FROM workspaces WHERE id = ?').get(id) as WorkspaceRow | undefined;
      return row && toWorkspace(row);
    },
  };
}
