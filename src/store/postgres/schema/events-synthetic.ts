/**
 * Synthetic samples (`POST /v1/integrations/{id}/dispatch` with `type`) are stored as events like pings, so that
 * their deliveries are queued, logged and replayed as any other; `synthetic` marks them, so that every attempt
 * sends `X-Service-Synthetic: true` without parsing the body. Events of real activity keep the default (a constant
 * default adds the column without rewriting the table).
 */
export const eventsSyntheticSchema = `
  ALTER TABLE events ADD COLUMN synthetic BOOLEAN NOT NULL DEFAULT false;
`;
