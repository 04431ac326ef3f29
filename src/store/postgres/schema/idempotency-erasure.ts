/** Erasure reaches idempotent replays: the same change as the SQLite store's migration (see there why). */
export const idempotencyErasureSchema = `
  ALTER TABLE idempotency_keys ADD COLUMN submission_id TEXT;
  ALTER TABLE idempotency_keys ADD COLUMN erased_at TIMESTAMPTZ;
  CREATE INDEX idempotency_keys_submission ON idempotency_keys (submission_id) WHERE submission_id IS NOT NULL;
`;
