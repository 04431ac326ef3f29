import type pg from 'pg';
import type { PublicOriginStore } from '../public-origin-store.js';
import { one } from './database.js';
import type { RowCaches } from './row-cache.js';

/** Origins whose verdict is kept: each is one scan of the keys' origins, repeated by every preflight from a page. */
const cachedOrigins = 1000;

export function postgresPublicOrigins(pool: pg.Pool, caches: RowCaches): PublicOriginStore {
  // Refusals are kept too (the scan costs the same), and every verdict goes when any publishable key is written.
  const verdicts = caches.create<{ allowed: boolean }>(['publishable_keys'], { rows: cachedOrigins });
  const anyKeyAllows = async (origin: string) => {
    // `?` is jsonb's "array holds this string" operator; node-postgres numbers its own parameters ($1).
    const row = await one(pool, `SELECT 1 AS found FROM publishable_keys WHERE status = 'active' AND allowed_origins ? $1 LIMIT 1`, [
      origin,
    ]);
    return row !== undefined;
  };
  return {
    async anyKeyAllows(origin) {
      return (await verdicts.get(origin, async () => ({ allowed: await anyKeyAllows(origin) })))!.allowed;
    },
  };
}
