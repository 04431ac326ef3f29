import type Database from 'better-sqlite3';
import type { PublicOriginStore } from '../public-origin-store.js';
import { statement } from './statements.js';

export function sqlitePublicOrigins(db: Database.Database): PublicOriginStore {
  return {
    async anyKeyAllows(origin) {
      const row = statement(
        db,
        `SELECT 1 AS found FROM publishable_keys, json_each(publishable_keys.allowed_origins) AS allowed
         WHERE publishable_keys.status = 'active' AND allowed.value = ? LIMIT 1`,
      ).get(origin);
      return row !== undefined;
    },
  };
}
