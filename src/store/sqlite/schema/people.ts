/**
 * People: accounts (a person, by email, lower case), their passkeys, their sessions, one-time links and the mail that
 * carries them (src/store/people-store.ts). A person's memberships are the `members` rows with their email, hence
 * the index on members' email. Links and sessions keep only the SHA-256 of their tokens. A session names the passkey
 * that began it without a foreign key: removing the passkey deletes its row and ends the session, which stays as a
 * record. `counter` is WebAuthn's unsigned 32-bit signature counter. None of these rows holds a respondent's data.
 */
export const peopleSchema = `
  CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    name TEXT,
    created_at TEXT NOT NULL
  );

  CREATE TABLE passkeys (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    credential_id TEXT NOT NULL UNIQUE,
    public_key BLOB NOT NULL,
    counter INTEGER NOT NULL,
    transports TEXT NOT NULL,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT
  );
  CREATE INDEX passkeys_account ON passkeys (account_id);

  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    token_hash BLOB NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts(id),
    passkey_id TEXT,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    ended_at TEXT
  );
  CREATE INDEX sessions_account ON sessions (account_id);
  CREATE INDEX sessions_passkey ON sessions (passkey_id) WHERE passkey_id IS NOT NULL;

  CREATE TABLE one_time_links (
    token_hash BLOB PRIMARY KEY,
    purpose TEXT NOT NULL CHECK (purpose IN ('sign_in','invite','challenge')),
    email TEXT NOT NULL,
    workspace_id TEXT REFERENCES workspaces(id),
    invite_id TEXT REFERENCES invites(id),
    expires_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX one_time_links_invite ON one_time_links (invite_id) WHERE invite_id IS NOT NULL;

  CREATE TABLE outgoing_mail (
    id TEXT PRIMARY KEY,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    text TEXT NOT NULL,
    html TEXT NOT NULL,
    created_at TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at TEXT NOT NULL,
    sent_at TEXT
  );
  CREATE INDEX outgoing_mail_due ON outgoing_mail (next_attempt_at) WHERE sent_at IS NULL;

  CREATE INDEX members_email ON members (email);
  `;
