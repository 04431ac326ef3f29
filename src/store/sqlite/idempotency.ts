import type Database from 'better-sqlite3';
import type { IdempotentResponse } from '../outbox.js';
import type { IdempotencyClaim, IdempotencyStore } from '../types.js';
import { statement } from './statements.js';

interface IdempotencyRow {
  fingerprint: string;
  state: 'in_progress' | 'done';
  sealed_response: string | null;
  created_at: string;
}

const abandonedClaimMs = 60_000;

/**
 * Completes a claim that is still in progress; false when it is not (another request completed or took it over).
 * Runs in the caller's transaction: the outbox of a change completes its request's claim with it.
 */
export function completeClaim(db: Database.Database, { ownerId, keyHash, sealedResponse }: IdempotentResponse): boolean {
  return (
    statement(
      db,
      `UPDATE idempotency_keys SET state = 'done', sealed_response = ? WHERE owner_id = ? AND key_hash = ? AND state = 'in_progress'`,
    ).run(sealedResponse, ownerId, keyHash).changes === 1
  );
}

export function sqliteIdempotency(db: Database.Database): IdempotencyStore {
  // Claiming is read-then-write, so it runs as one IMMEDIATE transaction: two concurrent requests with
  // the same key cannot both claim it, even from two processes sharing the database file.
  const claim = db.transaction(
    (ownerId: string, keyHash: string, fingerprint: string, now: string, ttlSeconds: number): IdempotencyClaim => {
      const row = statement(db, 'SELECT * FROM idempotency_keys WHERE owner_id = ? AND key_hash = ?').get(ownerId, keyHash) as
        | IdempotencyRow
        | undefined;
      const age = row === undefined ? 0 : Date.parse(now) - Date.parse(row.created_at);
      const expired = row !== undefined && age >= ttlSeconds * 1000;
      // A claim whose request never finished (the process died mid-request) is taken over after a minute
      // rather than blocking the key for a day.
      const abandoned = row !== undefined && row.state === 'in_progress' && age >= abandonedClaimMs;
      if (row === undefined || expired || abandoned) {
        statement(
          db,
          `INSERT OR REPLACE INTO idempotency_keys (owner_id, key_hash, fingerprint, state, created_at) VALUES (?, ?, ?, 'in_progress', ?)`,
        ).run(ownerId, keyHash, fingerprint, now);
        return { outcome: 'claimed' };
      }
      if (row.fingerprint !== fingerprint) return { outcome: 'conflict', reason: 'different_request' };
      if (row.state === 'in_progress' || row.sealed_response === null) return { outcome: 'conflict', reason: 'in_progress' };
      return { outcome: 'replay', sealedResponse: row.sealed_response };
    },
  );
  return {
    async claim(ownerId, keyHash, fingerprint, now, ttlSeconds) {
      return claim.immediate(ownerId, keyHash, fingerprint, now, ttlSeconds);
    },
    async complete(ownerId, keyHash, sealedResponse) {
      completeClaim(db, { ownerId, keyHash, sealedResponse });
    },
    async release(ownerId, keyHash) {
      statement(db, `DELETE FROM idempotency_keys WHERE owner_id = ? AND key_hash = ? AND state = 'in_progress'`).run(ownerId, keyHash);
    },
    async purgeExpired(before) {
      return statement(db, 'DELETE FROM idempotency_keys WHERE created_at < ?').run(before).changes;
    },
  };
}
