/**
 * DATABASE_POOL_SIZE reaches the PostgreSQL store the server opens: however many requests need the database at
 * once, the process holds no more connections for them than the size, and the others wait for a free one.
 */
import { tmpdir } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/types.js';
import { createTestDatabase } from '../support/postgres.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

/** The connections of the store's pool that are running `marker` right now, as PostgreSQL sees them. */
async function running(marker: string): Promise<number> {
  const observer = new pg.Client({ connectionString: database.url });
  await observer.connect();
  try {
    const { rows } = await observer.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
      [`%${marker}%`],
    );
    return rows[0]!.count;
  } finally {
    await observer.end();
  }
}

describe('DATABASE_POOL_SIZE on PostgreSQL', () => {
  it.each([2, 3])('when the size is %i and 8 requests need the database at once, then that many run and the rest wait', async (size) => {
    const store = (await openStore({ databaseUrl: database.url, databasePoolSize: size, dataDir: tmpdir() })) as Store & { pool: pg.Pool };
    // Every statement waits on an advisory lock the test holds, so they stay running until the test has counted them.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    const lock = 7_310_000 + size;
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [lock]);
      const marker = `pool_size_probe_${size}`;
      const queries = Array.from({ length: 8 }, () => store.pool.query(`SELECT pg_advisory_xact_lock_shared($1), '${marker}'`, [lock]));
      // Settled once each statement is either running in PostgreSQL or waiting in the pool (none still connecting).
      let counted = await running(marker);
      for (
        const since = Date.now();
        counted + store.pool.waitingCount < 8 && Date.now() - since < 10_000;
        counted = await running(marker)
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(counted).toBe(size);
      expect(store.pool.waitingCount).toBe(8 - size);
      await holder.query('SELECT pg_advisory_unlock($1)', [lock]);
      await Promise.all(queries);
    } finally {
      await holder.end();
      await store.close();
    }
  });
});
