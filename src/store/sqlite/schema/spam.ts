/**
 * Spam protection: proof-of-work challenges already used, kept until they expire (a solution is accepted once), and
 * per form, environment and day the public submissions a honeypot caught, for analytics. No respondent data.
 */
export const spamSchema = `
  CREATE TABLE used_challenges (
    signature TEXT PRIMARY KEY,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX used_challenges_expiry ON used_challenges (expires_at);

  CREATE TABLE spam_counts (
    form_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    day TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (form_id, environment, day)
  );
`;
