/**
 * Enterprise workspaces may have rate limits of their own, set by an operator (`npm run admin -- workspace-limits`).
 * They are stored with the workspace, which every authenticated request reads, so a change applies from the next
 * request in every server, without a restart. Other plans have the standard limits: a change is refused.
 */
import type { Workspace, WorkspaceRateLimits } from '../../store/types.js';
import { forbidden, invalidValue, notFound } from '../errors.js';
import { type Services, timestamp } from '../services.js';

/** The same bounds as `RateLimits` in the document (and the `X-RateLimit-Limit` header). */
export const MAX_RATE_LIMIT = 1_000_000;

/** Sets the workspace's limits, or with null goes back to the standard ones; audited as `workspace.rate_limits_changed`. */
export async function setWorkspaceRateLimits(
  services: Services,
  workspaceId: string,
  limits: WorkspaceRateLimits | null,
): Promise<Workspace> {
  const workspace = await services.store.workspaces.get(workspaceId);
  if (!workspace) throw notFound('workspace', workspaceId, `No workspace ${workspaceId} exists.`);
  if (workspace.plan !== 'enterprise') {
    throw forbidden(
      'plan_required',
      `Workspace ${workspaceId} is on the ${workspace.plan} plan: only Enterprise workspaces can have rate limits of their own.`,
    );
  }
  if (limits) assertLimitsInRange(limits);
  const reason = limits
    ? `per key ${limits.perKeyPerSecond} requests per second, per workspace ${limits.perWorkspacePerMinute} per minute`
    : 'back to the standard limits';
  const updated = await services.store.workspaces.setRateLimits(workspaceId, limits, {
    workspaceId,
    environment: 'live',
    type: 'workspace.rate_limits_changed',
    actor: { type: 'system', id: null, name: null },
    target: { type: 'workspace', id: workspaceId, name: workspace.name },
    reason,
    at: timestamp(services),
  });
  if (!updated) throw notFound('workspace', workspaceId, `No workspace ${workspaceId} exists.`);
  return updated;
}

function assertLimitsInRange(limits: WorkspaceRateLimits): void {
  const issues = (
    [
      ['per_key_per_second', limits.perKeyPerSecond],
      ['per_workspace_per_minute', limits.perWorkspacePerMinute],
    ] as const
  )
    .filter(([, value]) => !Number.isSafeInteger(value) || value < 1 || value > MAX_RATE_LIMIT)
    .map(([name, value]) => ({
      location: 'body' as const,
      pointer: `/${name}`,
      code: 'out_of_range',
      message: `${value} is not a whole number from 1 to ${MAX_RATE_LIMIT}`,
    }));
  if (issues.length > 0) throw invalidValue(issues, `Rate limits must be whole numbers from 1 to ${MAX_RATE_LIMIT}.`);
}
