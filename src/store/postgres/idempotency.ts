import type pg from 'pg';
import type { IdempotencyClaim, IdempotencyStore } from '../types.js';
import { inTransaction, one, run } from './database.js';
import { completeClaim } from './outbox.js';

interface IdempotencyRow {
  fingerprint: string;
  state: 'in_progress' | 'done';
  sealed_response: string | null;
  created_at: string;
}

const abandonedClaimMs = 60_000;

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
            'SELECT fingerprint, state, sealed_response, created_at FROM idempotency_keys WHERE owner_id = $1 AND key_hash = $2 FOR UPDATE',
            [ownerId, keyHash],
          );
          // Released between the two statements: claim again.
          if (row === undefined) continue;
          const age = Date.parse(now) - Date.parse(row.created_at);
          // A claim whose request never finished (the process died mid-request) is taken over after a minute
          // rather than blocking the key for a day.
          if (age >= ttlSeconds * 1000 || (row.state === 'in_progress' && age >= abandonedClaimMs)) {
            await run(
              client,
              `UPDATE idempotency_keys SET fingerprint = $3, state = 'in_progress', sealed_response = NULL, created_at = $4
               WHERE owner_id = $1 AND key_hash = $2`,
              [ownerId, keyHash, fingerprint, now],
            );
            return { outcome: 'claimed' };
          }
          if (row.fingerprint !== fingerprint) return { outcome: 'conflict', reason: 'different_request' };
          if (row.state === 'in_progress' || row.sealed_response === null) return { outcome: 'conflict', reason: 'in_progress' };
          return { outcome: 'replay', sealedResponse: row.sealed_response };
        }
      });
    },
    async complete(ownerId, keyHash, sealedResponse) {
      await completeClaim(pool, { ownerId, keyHash, sealedResponse });
    },
    async release(ownerId, keyHash) {
      // A claim already answered (by a change's own transaction) stays answered.
      await run(pool, `DELETE FROM idempotency_keys WHERE owner_id = $1 AND key_hash = $2 AND state = 'in_progress'`, [ownerId, keyHash]);
    },
    async purgeExpired(before) {
      return run(pool, 'DELETE FROM idempotency_keys WHERE created_at < $1', [before]);
    },
  };
}
