import { toWorkspace, type WorkspaceRow } from '../rows/workspaces.js';
import type { WorkspaceStore } from '../types.js';
import { one, type Queryable, run } from './database.js';

export function postgresWorkspaces(db: Queryable): WorkspaceStore {
  return {
    async create(workspace) {
      await run(db, 'INSERT INTO workspaces (id, name, plan, created_at) VALUES ($1, $2, $3, $4)', [
        workspace.id,
        workspace.name,
        workspace.plan,
        workspace.createdAt,
      ]);
    },
    async get(id) {
      const row = await one<WorkspaceRow>(db, 'SELECT * FROM workspaces WHERE id = $1', [id]);
      return row && toWorkspace(row);
    },
  };
}
