/** What a public submission spends, and what its honeypot caught: the SQLite store's migration (see there why). */
export const spamSpentSchema = `
  CREATE TABLE spent_started_tokens (
    token_hash BYTEA PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX spent_started_tokens_expiry ON spent_started_tokens (expires_at);

  CREATE TABLE caught_submissions (
    submission_id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    form_id TEXT NOT NULL,
    token_hash BYTEA NOT NULL,
    completed BOOLEAN NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX caught_submissions_expiry ON caught_submissions (expires_at);
`;
