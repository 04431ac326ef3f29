/**
 * OAuth 2.0: registered clients, grants (one per consent), authorization codes and tokens. Codes and tokens
 * are kept only as SHA-256 hashes; everything issued under a grant points at it, so revoking a grant (reuse
 * of a code or refresh token) is two UPDATEs by `grant_id`.
 */
export const oauthSchema = `
  CREATE TABLE oauth_clients (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    redirect_uris JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
  );

  CREATE TABLE oauth_grants (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES oauth_clients(id),
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    scopes JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ,
    revocation_reason TEXT
  );
  CREATE INDEX oauth_grants_workspace ON oauth_grants (workspace_id);

  CREATE TABLE oauth_authorization_codes (
    code_hash BYTEA PRIMARY KEY,
    grant_id TEXT NOT NULL UNIQUE REFERENCES oauth_grants(id),
    redirect_uri TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    redeemed_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
  );

  CREATE TABLE oauth_access_tokens (
    id TEXT PRIMARY KEY,
    grant_id TEXT NOT NULL REFERENCES oauth_grants(id),
    token_hash BYTEA NOT NULL UNIQUE,
    expires_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX oauth_access_tokens_grant ON oauth_access_tokens (grant_id);

  CREATE TABLE oauth_refresh_tokens (
    id TEXT PRIMARY KEY,
    grant_id TEXT NOT NULL REFERENCES oauth_grants(id),
    token_hash BYTEA NOT NULL UNIQUE,
    expires_at TIMESTAMPTZ NOT NULL,
    rotated_at TIMESTAMPTZ,
    revoked_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);
  `;
