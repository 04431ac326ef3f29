import type Database from 'better-sqlite3';
import type { Plan } from '../../contract.js';
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
      const row = statement(db, 'SELECT * FROM workspaces WHERE id = ?').get(id) as
        | { id: string; name: string; plan: Plan; created_at: string }
        | undefined;
      return row && { id: row.id, name: row.name, plan: row.plan, createdAt: row.created_at };
    },
  };
}
