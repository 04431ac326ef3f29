import type { WorkspaceRateLimits } from '../types.js';
import { type ParametersOf, shared } from './statement.js';

export const workspaceSql = {
  insert: shared('INSERT INTO workspaces (id, name, plan, created_at) VALUES (:id, :name, :plan, :createdAt)'),
  get: shared('SELECT * FROM workspaces WHERE id = :id'),
  setRateLimits: shared(
    `UPDATE workspaces SET rate_limit_per_key_per_second = :perKeyPerSecond, rate_limit_per_workspace_per_minute = :perWorkspacePerMinute
     WHERE id = :id RETURNING *`,
  ),
};

/** Null limits clear them: the workspace falls back to its plan's. */
export const rateLimitParameters = (id: string, limits: WorkspaceRateLimits | null): ParametersOf<typeof workspaceSql.setRateLimits> => ({
  id,
  perKeyPerSecond: limits?.perKeyPerSecond ?? null,
  perWorkspacePerMinute: limits?.perWorkspacePerMinute ?? null,
});
