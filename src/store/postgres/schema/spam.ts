/** Spam protection: the same tables as the SQLite store's migration (see there why). */
export const spamSchema = `
  CREATE TABLE used_challenges (
    signature TEXT PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX used_challenges_expiry ON used_challenges (expires_at);

  CREATE TABLE spam_counts (
    form_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    day DATE NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (form_id, environment, day)
  );
`;
