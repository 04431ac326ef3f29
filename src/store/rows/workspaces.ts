import type { Plan } from '../../contract.js';
import type { Workspace } from '../types.js';

export interface WorkspaceRow {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
}

export const toWorkspace = (row: WorkspaceRow): Workspace => ({ id: row.id, name: row.name, plan: row.plan, createdAt: row.created_at });
