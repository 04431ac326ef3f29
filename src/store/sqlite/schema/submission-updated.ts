/**
 * `updated_gte`: an index per partition (the workspace's, or one form's, per environment) on `updated_at`, so
 * a sync asking what changed since its last run reads only what changed, not every row of the ordered scan.
 * The list reads through it when few rows match (see `changedSinceFew` in the store), sorting them by the list's
 * order; when many match, the ordered scan checks `updated_at` and finds them densely.
 */
export const submissionUpdatedSchema = `
  CREATE INDEX submissions_updated ON submissions (workspace_id, environment, updated_at);
  CREATE INDEX submissions_form_updated ON submissions (form_id, environment, updated_at);
  `;
