/**
 * Erasure reaches idempotent replays. A stored response that carries a submission names it (`submission_id`), so
 * erasing the submission can find the response without opening it (it is sealed with the client's key). The
 * erasure clears the sealed response and sets `erased_at`: the key stays claimed, so a retry is refused rather than
 * answered with the person's data or run again as a new request that would store it anew.
 */
export const idempotencyErasureSchema = `
  ALTER TABLE idempotency_keys ADD COLUMN submission_id TEXT;
  ALTER TABLE idempotency_keys ADD COLUMN erased_at TEXT;
  CREATE INDEX idempotency_keys_submission ON idempotency_keys (submission_id) WHERE submission_id IS NOT NULL;
`;
