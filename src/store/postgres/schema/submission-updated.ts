/**
 * `updated_gte`: the same indexes as the SQLite store's migration (see there why). PostgreSQL's planner chooses
 * between them and the ordered scan from its statistics, by how many rows changed since `updated_gte`.
 */
export const submissionUpdatedSchema = `
  CREATE INDEX submissions_updated ON submissions (workspace_id, environment, updated_at);
  CREATE INDEX submissions_form_updated ON submissions (form_id, environment, updated_at);
  `;
