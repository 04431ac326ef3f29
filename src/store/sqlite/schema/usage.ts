/**
 * Metering and Enterprise rate limits.
 *
 * - `usage_counters`: API requests per workspace and calendar month (`YYYY-MM`, UTC), live keys only. Each server
 *   counts in memory and adds its counts every few seconds (`api_requests = api_requests + ?`), so requests never
 *   wait on a write and several servers add to the same row.
 * - `workspaces.rate_limit_*`: limits an operator set for an Enterprise workspace; both null for the standard
 *   ones. They are read with the workspace on every authenticated request, so a change applies at once everywhere.
 * - `deliveries_usage`: counting a month's attempts of a workspace's live integrations without scanning them all.
 */
export const usageSchema = `
  CREATE TABLE usage_counters (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    month TEXT NOT NULL,
    api_requests INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, month)
  );
  ALTER TABLE workspaces ADD COLUMN rate_limit_per_key_per_second INTEGER;
  ALTER TABLE workspaces ADD COLUMN rate_limit_per_workspace_per_minute INTEGER;
  CREATE INDEX deliveries_usage ON deliveries (workspace_id, environment, created_at);
`;
