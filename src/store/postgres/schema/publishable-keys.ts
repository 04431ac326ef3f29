/**
 * Publishable keys: keys a web page sends to the public operations. The value is not a secret (it is shown
 * whenever the key is read) and is looked up on every public request, hence its unique index; `token_secret` signs
 * the `started_token`s of the forms the key fetches and is never shown. Public resume tokens are kept only as
 * hashes, one per public submission; a token outlives nothing it could reach: when its submission is gone, the
 * lookup of the submission fails first.
 */
export const publishableKeysSchema = `
  CREATE TABLE publishable_keys (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    name TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    value TEXT NOT NULL UNIQUE,
    allowed_origins JSONB NOT NULL,
    attachment_type TEXT NOT NULL CHECK (attachment_type IN ('workspace','form','folder')),
    attachment_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('active','revoked')),
    token_secret BYTEA NOT NULL,
    revoked_at TIMESTAMPTZ,
    last_used_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX publishable_keys_page ON publishable_keys (workspace_id, created_at DESC, id DESC);

  CREATE TABLE public_resume_tokens (
    submission_id TEXT PRIMARY KEY,
    token_hash BYTEA NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
  );
  `;
