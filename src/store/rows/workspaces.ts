import type { Plan } from '../../contract.js';
import type { Workspace } from '../types.js';

export interface WorkspaceRow {
  id: string;
  name: string;
  plan: Plan;
  created_at: string;
  rate_limit_per_key_per_second: number | null;
  rate_limit_per_workspace_per_minute: number | null;
}

export const toWorkspace = (row: WorkspaceRow): Workspace => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  createdAt: row.created_at,
  rateLimits:
    row.rate_limit_per_key_per_second === null || row.rate_limit_per_workspace_per_minute === null
      ? null
      : { perKeyPerSecond: row.rate_limit_per_key_per_second, perWorkspacePerMinute: row.rate_limit_per_workspace_per_minute },
});
