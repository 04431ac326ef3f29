import type Database from 'better-sqlite3';
import { deepFreeze } from '../../frozen.js';
import type { PublicOriginStore } from '../public-origin-store.js';
import { rowCaches } from './row-cache.js';
import { statement } from './statements.js';

/** Origins whose verdict is kept: each is one scan of the keys' origins, repeated by every preflight from a page. */
const cachedOrigins = 1000;

export function sqlitePublicOrigins(db: Database.Database): PublicOriginStore {
  // Refusals are kept too (the scan costs the same), and every verdict goes when any publishable key is written.
  const verdicts = rowCaches(db).create<{ allowed: boolean }>(['publishable_keys'], { rows: cachedOrigins });
  const anyKeyAllows = (origin: string) =>
    statement(
      db,
      `SELECT 1 AS found FROM publishable_keys, json_each(publishable_keys.allowed_origins) AS allowed
       WHERE publishable_keys.status = 'active' AND allowed.value = ? LIMIT 1`,
    ).get(origin) !== undefined;
  return {
    async anyKeyAllows(origin) {
      return verdicts.get(origin, () => deepFreeze({ allowed: anyKeyAllows(origin) }))!.allowed;
    },
  };
}
