/**
 * The events feed and signing-secret rotation.
 *
 * - Every event is now stored, subscribed or not (the feed lists them), and kept 30 days: `events_retention`
 *   serves the purge, which deletes the oldest first.
 * - `previous_signing_secret` is the secret a rotation replaced, kept as issued like `signing_secret` (it signs
 *   deliveries beside the new one) until `previous_secret_expires_at`; the purge clears both afterwards.
 */
export const eventsFeedSchema = `
  CREATE INDEX events_retention ON events (created_at);
  ALTER TABLE integrations ADD COLUMN previous_signing_secret TEXT;
  ALTER TABLE integrations ADD COLUMN previous_secret_expires_at TEXT;
  CREATE INDEX integrations_previous_secret ON integrations (previous_secret_expires_at) WHERE previous_secret_expires_at IS NOT NULL;
`;
