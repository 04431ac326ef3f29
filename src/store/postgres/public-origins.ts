import type pg from 'pg';
import type { PublicOriginStore } from '../public-origin-store.js';
import { one } from './database.js';

export function postgresPublicOrigins(pool: pg.Pool): PublicOriginStore {
  return {
    async anyKeyAllows(origin) {
      // `?` is jsonb's "array holds this string" operator; node-postgres numbers its own parameters ($1).
      const row = await one(pool, `SELECT 1 AS found FROM publishable_keys WHERE status = 'active' AND allowed_origins ? $1 LIMIT 1`, [
        origin,
      ]);
      return row !== undefined;
    },
  };
}
