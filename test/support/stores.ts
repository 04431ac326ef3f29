/**
 * The stores tests run against. `TEST_STORE=postgres` (the `postgres` vitest project) puts the HTTP suite on
 * PostgreSQL; otherwise SQLite in memory. Every PostgreSQL store gets a database of its own with no rows
 * (`./postgres.ts`), given back when the store is closed, so tests never share rows or a delivery queue.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import type { Store } from '../../src/store/types.js';
import { createTestDatabase } from './postgres.js';

export type StoreKind = 'sqlite' | 'postgres';
export const storeKinds: readonly StoreKind[] = ['sqlite', 'postgres'];
/**
 * The kind the running project asks for, read at each call. The API projects run their files in one module graph
 * per worker (vitest.config.ts); vitest keeps such a worker to one project, and nothing here depends on that.
 */
export const testStoreKind = (): StoreKind => (process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite');

/** Connections per test store: enough for concurrent requests, few enough for many files in parallel. */
const poolSize = 4;

/** A database that can be opened more than once (a restart), and removed. */
export interface TestDatabase {
  open(): Promise<Store>;
  /** The environment variables that point the server or `npm run admin` at it. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export async function createStoreDatabase(kind: StoreKind = testStoreKind()): Promise<TestDatabase> {
  if (kind === 'postgres') {
    const database = await createTestDatabase();
    return { open: () => createPostgresStore(database.url, { max: poolSize }), env: { DATABASE_URL: database.url }, drop: database.drop };
  }
  const dir = mkdtempSync(join(tmpdir(), 'form-funnel-store-'));
  return {
    open: async () => createSqliteStore(join(dir, 'form-funnel.db')),
    env: { DATA_DIR: dir },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A fresh, empty store; closing it removes its database. */
export async function createTestStore(kind: StoreKind = testStoreKind()): Promise<Store> {
  if (kind === 'sqlite') return createSqliteStore(':memory:');
  const database = await createTestDatabase();
  const store = await createPostgresStore(database.url, { max: poolSize });
  const close = store.close;
  return Object.assign(store, {
    close: async () => {
      await close();
      await database.drop();
    },
  });
}

/**
 * Rows of a raw query, for tests that check what is (and is not) stored, or a statement that returns none.
 * `?` placeholders, whatever the store.
 */
export async function storedRows(store: Store, sql: string, ...params: unknown[]): Promise<Array<Record<string, unknown>>> {
  if ('db' in store) {
    const statement = (store as ReturnType<typeof createSqliteStore>).db.prepare(sql);
    if (!statement.reader) {
      statement.run(...params);
      return [];
    }
    return statement.all(...params) as Array<Record<string, unknown>>;
  }
  if ('pool' in store) {
    let index = 0;
    const text = sql.replace(/\?/g, () => `$${++index}`);
    return (await (store as Awaited<ReturnType<typeof createPostgresStore>>).pool.query(text, params)).rows;
  }
  throw new Error('storedRows knows the SQLite and PostgreSQL stores only');
}
