/**
 * What a public submission spends, and what its honeypot caught, each kept until it expires (the purge forgets it):
 * - `spent_started_tokens`: the SHA-256 of a `started_token` a stored submission carried, so that one fetch of a
 *   form times one submission (a token reused is refused as an untimed one would be).
 * - `caught_submissions`: a submission the honeypot caught, of which nothing is stored but what lets its PATCHes
 *   be answered as a real one's (its id, where it belongs, its resume token's hash, whether it is completed). No
 *   answer and nothing else about a respondent.
 */
export const spamSpentSchema = `
  CREATE TABLE spent_started_tokens (
    token_hash BLOB PRIMARY KEY,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX spent_started_tokens_expiry ON spent_started_tokens (expires_at);

  CREATE TABLE caught_submissions (
    submission_id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    form_id TEXT NOT NULL,
    token_hash BLOB NOT NULL,
    completed INTEGER NOT NULL,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX caught_submissions_expiry ON caught_submissions (expires_at);
`;
