import type pg from 'pg';
import { claimOutcome, type IdempotencyRow } from '../rows/idempotency.js';
import type { IdempotencyClaim, IdempotencyStore } from '../types.js';
import { inTransaction, one, type Queryable, run } from './database.js';
import { completeClaim } from './outbox.js';

/** Clears the stored responses that carry the submission, in the caller's transaction: see the SQLite store's. */
export async function eraseReplays(db: Queryable, submissionId: string, at: string): Promise<void> {
  await run(db, 'UPDATE idempotency_keys SET sealed_response = NULL, erased_at = $1 WHERE submission_id = $2', [at, submissionId]);
}

/** The same for every submission whose id `selection` (a subquery) lists: for the cascades that delete many at once. */
export const eraseReplaysOf = (selection: string): string =>
  `UPDATE idempotency_keys SET sealed_response = NULL, erased_at = now() WHERE submission_id IN (${selection})`;

export function postgresIdempotency(pool: pg.Pool): IdempotencyStore {
  return {
    /**
     * The INSERT … ON CONFLICT DO NOTHING is the claim: of two requests with the same key (in any process) exactly
     * one inserts; the other waits for it to commit, then reads the row under a lock and decides as SQLite does.
     * An expired or abandoned row is taken over by an UPDATE of that locked row.
     */
    async claim(ownerId, keyHash, fingerprint, now, ttlSeconds): Promise<IdempotencyClaim> {
      return inTransaction(pool, async (client) => {
        for (;;) {
          const inserted = await run(
            client,
            `INSERT INTO idempotency_keys (owner_id, key_hash, fingerprint, state, created_at) VALUES ($1, $2, $3, 'in_progress', $4)
             ON CONFLICT (owner_id, key_hash) DO NOTHING`,
            [ownerId, keyHash, fingerprint, now],
          );
          if (inserted === 1) return { outcome: 'claimed' };
          const row = await one<IdempotencyRow>(
            client,
            `SELECT fingerprint, state, sealed_response, created_at, erased_at FROM idempotency_keys
             WHERE owner_id = $1 AND key_hash = $2 FOR UPDATE`,
            [ownerId, keyHash],
          );
          // Released between the two statements: claim again.
          if (row === undefined) continue;
          const outcome = claimOutcome(row, fingerprint, now, ttlSeconds);
          if (outcome.outcome !== 'take_over') return outcome;
          await run(
            client,
            `UPDATE idempotency_keys SET fingerprint = $3, state = 'in_progress', sealed_response = NULL, created_at = $4,
               submission_id = NULL, erased_at = NULL
             WHERE owner_id = $1 AND key_hash = $2`,
            [ownerId, keyHash, fingerprint, now],
          );
          return { outcome: 'claimed' };
        }
      });
    },
    async complete(response) {
      await completeClaim(pool, response);
    },
    async release(ownerId, keyHash) {
      // A claim already answered (by a change's own transaction) stays answered.
      await run(pool, `DELETE FROM idempotency_keys WHERE owner_id = $1 AND key_hash = $2 AND state = 'in_progress'`, [ownerId, keyHash]);
    },
    async purgeExpired(before, limit) {
      return run(
        pool,
        `DELETE FROM idempotency_keys WHERE (owner_id, key_hash) IN (
           SELECT owner_id, key_hash FROM idempotency_keys WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
        [before, limit],
      );
    },
  };
}
