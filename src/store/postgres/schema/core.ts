/** Workspaces, keys, folders, forms and their versions, audit events, idempotency keys, team. */
export const coreSchema = `
  CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    plan TEXT NOT NULL CHECK (plan IN ('free','pro','business','enterprise')),
    created_at TIMESTAMPTZ NOT NULL
  );

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    name TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    scope TEXT NOT NULL CHECK (scope IN ('read','read_write','admin')),
    attachment_type TEXT NOT NULL CHECK (attachment_type IN ('workspace','form','folder')),
    attachment_id TEXT,
    expires_at TIMESTAMPTZ,
    ip_allowlist JSONB NOT NULL DEFAULT '[]',
    status TEXT NOT NULL CHECK (status IN ('active','revoked')),
    revoked_at TIMESTAMPTZ,
    revocation_reason TEXT,
    revocation_cause TEXT,
    secret_hash BYTEA NOT NULL UNIQUE,
    secret_hint TEXT NOT NULL,
    last_used_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX api_keys_page ON api_keys (workspace_id, created_at DESC, id DESC);
  CREATE INDEX api_keys_attachment ON api_keys (attachment_type, attachment_id) WHERE status = 'active';
  CREATE INDEX api_keys_expiry ON api_keys (expires_at) WHERE status = 'active' AND expires_at IS NOT NULL;

  CREATE TABLE folders (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    name TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX folders_page ON folders (workspace_id, created_at DESC, id DESC);

  CREATE TABLE forms (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    folder_id TEXT REFERENCES folders(id),
    name TEXT NOT NULL,
    slug TEXT NOT NULL,
    version INTEGER NOT NULL,
    definition TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    UNIQUE (workspace_id, environment, slug)
  );
  CREATE INDEX forms_page ON forms (workspace_id, created_at DESC, id DESC);
  CREATE INDEX forms_folder ON forms (folder_id);

  CREATE TABLE form_versions (
    id TEXT PRIMARY KEY,
    form_id TEXT NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    slug TEXT NOT NULL,
    definition TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (form_id, version)
  );

  CREATE TABLE audit_events (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    type TEXT NOT NULL,
    actor TEXT NOT NULL,
    target TEXT NOT NULL,
    reason TEXT,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX audit_events_page ON audit_events (workspace_id, created_at DESC, id DESC);

  CREATE TABLE idempotency_keys (
    owner_id TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_progress','done')),
    sealed_response TEXT,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (owner_id, key_hash)
  );
  CREATE INDEX idempotency_keys_expiry ON idempotency_keys (created_at);

  CREATE TABLE members (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    email TEXT NOT NULL,
    name TEXT,
    role TEXT NOT NULL CHECK (role IN ('admin','editor','viewer')),
    created_at TIMESTAMPTZ NOT NULL,
    UNIQUE (workspace_id, email)
  );
  CREATE INDEX members_page ON members (workspace_id, created_at DESC, id DESC);

  CREATE TABLE invites (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    email TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin','editor','viewer')),
    status TEXT NOT NULL CHECK (status IN ('pending','accepted','revoked','expired')),
    expires_at TIMESTAMPTZ NOT NULL,
    revoked_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX invites_page ON invites (workspace_id, created_at DESC, id DESC);
  CREATE UNIQUE INDEX invites_pending_email ON invites (workspace_id, email) WHERE status = 'pending';
  `;
