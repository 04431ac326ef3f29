import type Database from 'better-sqlite3';
import type { Store } from '../../src/store/types.js';
import { storedRows } from './stores.js';

/**
 * Every row of every table, as sorted JSON text (some tables have no rowid to order by, and only the set of rows
 * matters): what "nothing of the change is visible" is checked against. `ignore` drops columns that move on
 * their own (a key's last use).
 */
export function snapshot(db: Database.Database, ignore: Record<string, string[]> = {}): Record<string, string[]> {
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as Array<{
    name: string;
  }>;
  return Object.fromEntries(
    tables.map(({ name }) => [
      name,
      (db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>)
        .map((row) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([column]) => !ignore[name]?.includes(column)))))
        .sort(),
    ]),
  );
}

/** `snapshot` of either store's database (SQLite or PostgreSQL), for tests that run on both. */
export async function storeSnapshot(store: Store, ignore: Record<string, string[]> = {}): Promise<Record<string, string[]>> {
  if ('db' in store) return snapshot((store as Store & { db: Database.Database }).db, ignore);
  const tables = await storedRows(store, `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'`);
  const entries = await Promise.all(
    tables.map(async ({ name }) => {
      const rows = await storedRows(store, `SELECT * FROM "${name as string}"`);
      return [
        name as string,
        rows
          .map((row) =>
            JSON.stringify(Object.fromEntries(Object.entries(row).filter(([column]) => !ignore[name as string]?.includes(column)))),
          )
          .sort(),
      ] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * Makes every statement that fires `trigger` (e.g. `BEFORE INSERT ON events`) fail, on either store: a failure
 * injected exactly where a transaction writes its last rows. Returns what removes it. Closing the store removes it on
 * SQLite; on PostgreSQL a test database left with the trigger or its function is dropped instead of handed out again
 * (test/support/postgres.ts), and copying the template anew costs the next test a second or so: remove it.
 */
export async function injectFailure(store: Store, trigger: string): Promise<() => Promise<void>> {
  if ('db' in store) {
    await storedRows(store, `CREATE TEMP TRIGGER injected_failure ${trigger} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    return async () => void (await storedRows(store, 'DROP TRIGGER injected_failure'));
  }
  await storedRows(
    store,
    `CREATE OR REPLACE FUNCTION injected_failure() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$`,
  );
  await storedRows(store, `CREATE TRIGGER injected_failure ${trigger} FOR EACH ROW EXECUTE FUNCTION injected_failure()`);
  return async () => {
    await storedRows(store, `DROP TRIGGER injected_failure ${trigger.replace(/^.* ON /, 'ON ')}`);
    await storedRows(store, 'DROP FUNCTION injected_failure()');
  };
}

/** `run` with `injectFailure(store, trigger)` in force. */
export async function withInjectedFailure<T>(store: Store, trigger: string, run: () => Promise<T>): Promise<T> {
  const remove = await injectFailure(store, trigger);
  try {
    return await run();
  } finally {
    await remove();
  }
}
