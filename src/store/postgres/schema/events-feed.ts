/** The events feed and signing-secret rotation: see the SQLite schema of the same name. */
export const eventsFeedSchema = `
  CREATE INDEX events_retention ON events (created_at);
  ALTER TABLE integrations
    ADD COLUMN previous_signing_secret TEXT,
    ADD COLUMN previous_secret_expires_at TIMESTAMPTZ;
  CREATE INDEX integrations_previous_secret ON integrations (previous_secret_expires_at) WHERE previous_secret_expires_at IS NOT NULL;
`;
