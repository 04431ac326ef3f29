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

/** Every column, so a new one is a compile error here until the joined read below carries it too. */
const columns: Record<keyof WorkspaceRow, true> = {
  id: true,
  name: true,
  plan: true,
  created_at: true,
  rate_limit_per_key_per_second: true,
  rate_limit_per_workspace_per_minute: true,
};
const columnNames = Object.keys(columns) as Array<keyof WorkspaceRow>;

/**
 * The workspace's columns in a query that joins another table whose columns share their names (`id`, `name`,
 * `created_at`): each is selected as `workspace_<column>`, and `toJoinedWorkspace` reads them back.
 */
export const joinedWorkspaceColumns = (alias: string): string =>
  columnNames.map((column) => `${alias}.${column} AS workspace_${column}`).join(', ');

const joinedNames = columnNames.map((column) => [column, `workspace_${column}`] as const);

export function toJoinedWorkspace(row: Record<string, unknown>): Workspace {
  const workspace: Partial<Record<keyof WorkspaceRow, unknown>> = {};
  for (const [column, joined] of joinedNames) workspace[column] = row[joined];
  return toWorkspace(workspace as WorkspaceRow);
}
