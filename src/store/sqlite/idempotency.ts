import type Database from 'better-sqlite3';
import type { IdempotentResponse } from '../outbox.js';
import { claimOutcome, type IdempotencyRow } from '../rows/idempotency.js';
import type { IdempotencyClaim, IdempotencyStore } from '../types.js';
import { statement } from './statements.js';

/**
 * Completes a claim that is still in progress; false when it is not (another request completed or took it over).
 * Runs in the caller's transaction: the outbox of a change completes its request's claim with it.
 */
export function completeClaim(db: Database.Database, { ownerId, keyHash, sealedResponse, submissionId }: IdempotentResponse): boolean {
  return (
    statement(
      db,
      `UPDATE idempotency_keys SET state = 'done', sealed_response = ?, submission_id = ?
       WHERE owner_id = ? AND key_hash = ? AND state = 'in_progress'`,
    ).run(sealedResponse, submissionId ?? null, ownerId, keyHash).changes === 1
  );
}

/**
 * Clears the stored responses that carry the submission, in the caller's transaction (its erasure): the keys stay
 * claimed until they expire, so a retry is refused instead of replayed or run again.
 */
export function eraseReplays(db: Database.Database, submissionId: string, at: string): void {
  statement(db, 'UPDATE idempotency_keys SET sealed_response = NULL, erased_at = ? WHERE submission_id = ?').run(at, submissionId);
}

/** The same for every submission whose id `selection` (a subquery) lists: for the cascades that delete many at once. */
export const eraseReplaysOf = (selection: string): string =>
  `UPDATE idempotency_keys SET sealed_response = NULL, erased_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE submission_id IN (${selection})`;

export function sqliteIdempotency(db: Database.Database): IdempotencyStore {
  // Claiming is read-then-write, so it runs as one IMMEDIATE transaction: two concurrent requests with
  // the same key cannot both claim it, even from two processes sharing the database file.
  const claim = db.transaction(
    (ownerId: string, keyHash: string, fingerprint: string, now: string, ttlSeconds: number): IdempotencyClaim => {
      const row = statement(db, 'SELECT * FROM idempotency_keys WHERE owner_id = ? AND key_hash = ?').get(ownerId, keyHash) as
        | IdempotencyRow
        | undefined;
      const outcome = row === undefined ? ({ outcome: 'take_over' } as const) : claimOutcome(row, fingerprint, now, ttlSeconds);
      if (outcome.outcome !== 'take_over') return outcome;
      statement(
        db,
        `INSERT OR REPLACE INTO idempotency_keys (owner_id, key_hash, fingerprint, state, created_at) VALUES (?, ?, ?, 'in_progress', ?)`,
      ).run(ownerId, keyHash, fingerprint, now);
      return { outcome: 'claimed' };
    },
  );
  return {
    async claim(ownerId, keyHash, fingerprint, now, ttlSeconds) {
      return claim.immediate(ownerId, keyHash, fingerprint, now, ttlSeconds);
    },
    async complete(response) {
      completeClaim(db, response);
    },
    async release(ownerId, keyHash) {
      statement(db, `DELETE FROM idempotency_keys WHERE owner_id = ? AND key_hash = ? AND state = 'in_progress'`).run(ownerId, keyHash);
    },
    async purgeExpired(before, limit) {
      return statement(
        db,
        `DELETE FROM idempotency_keys WHERE rowid IN (
           SELECT rowid FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
      ).run(before, limit).changes;
    },
  };
}
