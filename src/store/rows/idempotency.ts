import type { IdempotencyClaim } from '../types.js';

/** An idempotency key's row, as both stores keep it. */
export interface IdempotencyRow {
  fingerprint: string;
  state: 'in_progress' | 'done';
  sealed_response: string | null;
  created_at: string;
  /** Set when the submission the response carried was erased; the response is gone then. */
  erased_at: string | null;
}

/**
 * A claim whose request never finished (the process died mid-request) is taken over after a minute rather than
 * blocking the key for a day.
 */
const abandonedClaimMs = 60_000;

/**
 * What a claim meets in an existing row, the same on every store: `take_over` when the row has expired or was
 * abandoned (the caller then claims it as if it were new), otherwise the conflict or the stored response.
 */
export function claimOutcome(
  row: IdempotencyRow,
  fingerprint: string,
  now: string,
  ttlSeconds: number,
): IdempotencyClaim | { outcome: 'take_over' } {
  const age = Date.parse(now) - Date.parse(row.created_at);
  if (age >= ttlSeconds * 1000 || (row.state === 'in_progress' && age >= abandonedClaimMs)) return { outcome: 'take_over' };
  if (row.fingerprint !== fingerprint) return { outcome: 'conflict', reason: 'different_request' };
  if (row.erased_at !== null) return { outcome: 'conflict', reason: 'erased' };
  if (row.state === 'in_progress' || row.sealed_response === null) return { outcome: 'conflict', reason: 'in_progress' };
  return { outcome: 'replay', sealedResponse: row.sealed_response };
}
