import type Database from 'better-sqlite3';
import type { IdempotencyClaim, IdempotencyStore, StoredResponse } from '../types.js';
import { statement } from './statements.js';

interface IdempotencyRow {
  fingerprint: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  created_at: string;
}

export function sqliteIdempotency(db: Database.Database): IdempotencyStore {
  // Claiming is read-then-write, so it runs as one IMMEDIATE transaction: two concurrent requests with
  // the same key cannot both claim it, even from two processes sharing the database file.
  const claim = db.transaction((apiKeyId: string, key: string, fingerprint: string, now: string, ttlSeconds: number): IdempotencyClaim => {
    const row = statement(db, 'SELECT * FROM idempotency_keys WHERE api_key_id = ? AND idempotency_key = ?').get(apiKeyId, key) as
      | IdempotencyRow
      | undefined;
    const expired = row !== undefined && Date.parse(row.created_at) + ttlSeconds * 1000 <= Date.parse(now);
    if (row === undefined || expired) {
      statement(
        db,
        `INSERT OR REPLACE INTO idempotency_keys (api_key_id, idempotency_key, fingerprint, state, created_at)
         VALUES (?, ?, ?, 'in_progress', ?)`,
      ).run(apiKeyId, key, fingerprint, now);
      return { outcome: 'claimed' };
    }
    if (row.fingerprint !== fingerprint) return { outcome: 'conflict', reason: 'different_request' };
    if (row.state === 'in_progress') return { outcome: 'conflict', reason: 'in_progress' };
    const response: StoredResponse = {
      status: row.response_status!,
      headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
      body: JSON.parse(row.response_body ?? 'null') as unknown,
    };
    return { outcome: 'replay', response };
  });
  return {
    async claim(apiKeyId, key, fingerprint, now, ttlSeconds) {
      return claim.immediate(apiKeyId, key, fingerprint, now, ttlSeconds);
    },
    async complete(apiKeyId, key, response) {
      statement(
        db,
        `UPDATE idempotency_keys SET state = 'done', response_status = ?, response_headers = ?, response_body = ?
         WHERE api_key_id = ? AND idempotency_key = ?`,
      ).run(response.status, JSON.stringify(response.headers), JSON.stringify(response.body), apiKeyId, key);
    },
    async release(apiKeyId, key) {
      statement(db, 'DELETE FROM idempotency_keys WHERE api_key_id = ? AND idempotency_key = ?').run(apiKeyId, key);
    },
    async purgeExpired(before) {
      return statement(db, 'DELETE FROM idempotency_keys WHERE created_at < ?').run(before).changes;
    },
  };
}
