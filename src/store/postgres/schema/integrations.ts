/**
 * Integrations, the events they are sent, and their deliveries (one row per attempt: the integration log).
 *
 * - `integrations.signing_secret` is kept as issued, not hashed: every delivery is signed with the secret
 *   itself (HMAC), which a hash could not do. It is never returned after the create response.
 * - `integrations.form_id` has no foreign key: an integration outlives its form, so that it still receives
 *   that form's `form.deleted` event.
 * - `events.body` is the envelope as JSON text, exactly the bytes every attempt and replay sends and signs.
 * - `deliveries` is the durable queue: a pending row is an attempt still to make (`due_at`), so a restart
 *   loses nothing. `lease_until` marks rows a worker is sending; a crashed worker's lease runs out and the
 *   attempt is made again. `event_id` has no foreign key: logs of attempts already made outlive the events
 *   that a form's deletion removes.
 */
export const integrationsSchema = `
  CREATE TABLE integrations (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    url TEXT NOT NULL,
    events JSONB NOT NULL,
    enabled BOOLEAN NOT NULL,
    description TEXT,
    form_id TEXT,
    signing_secret TEXT NOT NULL,
    secret_hint TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX integrations_page ON integrations (workspace_id, created_at DESC, id DESC);
  CREATE INDEX integrations_subscribers ON integrations (workspace_id, environment) WHERE enabled;

  CREATE TABLE events (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    type TEXT NOT NULL,
    form_id TEXT,
    body TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX events_partition ON events (workspace_id, environment, created_at DESC, id DESC);
  CREATE INDEX events_form ON events (form_id) WHERE form_id IS NOT NULL;

  CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    integration_id TEXT NOT NULL REFERENCES integrations(id) ON DELETE CASCADE,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    attempt INTEGER NOT NULL CHECK (attempt BETWEEN 1 AND 8),
    status TEXT NOT NULL CHECK (status IN ('pending','succeeded','failed')),
    url TEXT NOT NULL,
    mock BOOLEAN NOT NULL,
    dispatched BOOLEAN NOT NULL,
    response_status INTEGER,
    duration_ms INTEGER,
    error TEXT,
    next_attempt_at TIMESTAMPTZ,
    due_at TIMESTAMPTZ NOT NULL,
    lease_until TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX deliveries_page ON deliveries (integration_id, environment, created_at DESC, id DESC);
  CREATE INDEX deliveries_due ON deliveries (due_at) WHERE status = 'pending';
  CREATE INDEX deliveries_partition ON deliveries (workspace_id, environment);
  CREATE INDEX deliveries_event ON deliveries (event_id);
`;

/**
 * Each integration's circuit breaker (see `CircuitState`), and why the service disabled an integration.
 * `deliveries_pending` serves the claim, which takes each integration's earliest due attempts;
 * `deliveries_leased` counts the attempts in flight.
 */
export const integrationCircuitSchema = `
  ALTER TABLE integrations
    ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN failing_since TIMESTAMPTZ,
    ADD COLUMN paused_until TIMESTAMPTZ,
    ADD COLUMN disabled_at TIMESTAMPTZ,
    ADD COLUMN disabled_reason TEXT CHECK (disabled_reason IN ('delivery_failures'));
  CREATE INDEX deliveries_pending ON deliveries (integration_id, due_at, id) WHERE status = 'pending';
  CREATE INDEX deliveries_leased ON deliveries (lease_until) WHERE status = 'pending' AND lease_until IS NOT NULL;
`;
