/**
 * `GET /usage`: the workspace's live usage this calendar month and last (UTC), its plan and the rate limits in
 * effect. Test mode is never metered: only live submissions, attempts and keys' requests are counted, and the
 * counts never go down (see UsageStore.figures).
 */
import type { Schema } from '../../contract.js';
import type { WorkspaceRateLimits } from '../../store/types.js';
import type { UsagePeriod } from '../../store/usage-store.js';
import { assertWorkspaceWide, type Principal } from '../access.js';
import type { Services } from '../services.js';
import { monthOf } from './meter.js';

/** The calendar month (UTC) `offset` months from the one holding `at`. */
export function calendarMonth(at: Date, offset: number): UsagePeriod {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset + 1, 1));
  return { month: monthOf(start), start: start.toISOString(), end: end.toISOString() };
}

/** The rate limits a workspace's requests are held to: an operator's, else the service's standard ones. */
export function effectiveRateLimits(standard: WorkspaceRateLimits, workspace: Principal['workspace']): Schema<'RateLimits'> {
  const custom = workspace.rateLimits ?? null;
  const limits = custom ?? standard;
  return { per_key_per_second: limits.perKeyPerSecond, per_workspace_per_minute: limits.perWorkspacePerMinute, custom: custom !== null };
}

export async function getUsage(services: Services, principal: Principal, standard: WorkspaceRateLimits): Promise<Schema<'Usage'>> {
  // The figures and the plan are the whole workspace's: a key attached to one form or folder has no business there.
  assertWorkspaceWide(principal, 'read the workspace usage');
  // This server's latest counts first, so that its own requests are in the figure; other servers' may lag.
  await services.apiRequests?.flush();
  const now = services.now();
  const period = async (offset: number): Promise<Schema<'UsagePeriod'>> => {
    const month = calendarMonth(now, offset);
    const figures = await services.store.usage.figures(principal.workspace.id, month);
    return {
      month: month.month,
      starts_at: month.start,
      ends_at: month.end,
      submissions: figures.submissions,
      api_requests: figures.apiRequests,
      webhook_deliveries: figures.webhookDeliveries,
    };
  };
  const [current, previous] = await Promise.all([period(0), period(-1)]);
  return {
    object: 'usage',
    workspace_id: principal.workspace.id,
    plan: principal.workspace.plan,
    current_period: current,
    previous_period: previous,
    rate_limits: effectiveRateLimits(standard, principal.workspace),
  };
}
