/**
 * The test databases (test/support/postgres.ts) are handed out again once released: a copy of the template costs
 * 150 ms on a quiet machine and the PostgreSQL suites ask for one per test. A released database is reused only if
 * its schema is still a fresh copy's, so whatever a store installs when it opens must be in the template too.
 */
import { describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { createTestDatabase } from '../support/postgres.js';

describe('test databases on PostgreSQL', () => {
  it('when a store has opened, written to and closed a database, then the next caller gets that database back with no rows', async () => {
    const first = await createTestDatabase();
    const store = await createPostgresStore(first.url, { max: 1 });
    await store.pool.query(`INSERT INTO workspaces (id, name, plan, created_at) VALUES ('ws_reused', 'Reused', 'free', now())`);
    await store.close();
    await first.drop();

    const second = await createTestDatabase();
    try {
      expect(second.url).toBe(first.url);
      const reopened = await createPostgresStore(second.url, { max: 1 });
      try {
        expect((await reopened.pool.query('SELECT id FROM workspaces')).rows).toEqual([]);
      } finally {
        await reopened.close();
      }
    } finally {
      await second.drop();
    }
  });
});
