/**
 * The PostgreSQL store's transaction helper under faults: a deadlock or serialization failure runs the unit again
 * (bounded, with jittered backoff) instead of failing the request; a lost connection is `StoreUnavailable` at once,
 * never retried and never an unhandled 'error' event; an ordinary SQL error passes through as it was.
 */
import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailable } from '../../src/store/errors.js';
import { inTransaction, isUniqueViolation, one, openPostgres, run, TRANSACTION_ATTEMPTS } from '../../src/store/postgres/database.js';
import { createTestDatabase } from '../support/postgres.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
beforeAll(async () => {
  database = await createTestDatabase();
  pool = await openPostgres(database.url, { max: 4 });
  await pool.query('CREATE TABLE retry_probe (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
});
afterAll(async () => {
  // Dropped again, so the database keeps the schema it was handed out with (and can be handed out again).
  await pool.query('DROP TABLE retry_probe');
  await pool.end();
  await database.drop();
});

const signal = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
};

describe('transactions on PostgreSQL under faults', () => {
  it('when two transactions deadlock, then the one PostgreSQL aborts runs again and both commit', async () => {
    await run(pool, 'INSERT INTO retry_probe (id, n) VALUES (1, 0), (2, 0)');
    const locked = [signal(), signal()];
    const attempts = [0, 0];
    // Each locks one row, waits until the other has locked the other row, then asks for it: a deadlock, the first time.
    const crossing = (index: 0 | 1, [first, second]: [number, number]) =>
      inTransaction(pool, async (client) => {
        attempts[index]! += 1;
        await run(client, 'UPDATE retry_probe SET n = n + 1 WHERE id = $1', [first]);
        if (attempts[index] === 1) {
          locked[index]!.resolve();
          await locked[1 - index]!.promise;
        }
        await run(client, 'UPDATE retry_probe SET n = n + 1 WHERE id = $1', [second]);
        return index;
      });
    expect(await Promise.all([crossing(0, [1, 2]), crossing(1, [2, 1])])).toEqual([0, 1]);
    expect(attempts.toSorted()).toEqual([1, 2]);
    expect((await pool.query('SELECT n FROM retry_probe ORDER BY id')).rows).toEqual([{ n: 2 }, { n: 2 }]);
  });

  it('when a unit keeps failing to serialize, then it runs a bounded number of times and the store reports contention', async () => {
    let runs = 0;
    const failing = inTransaction(pool, async (client) => {
      runs += 1;
      await client.query('SELECT 1');
      throw Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' });
    });
    const error = await failing.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect((error as StoreUnavailable).reason).toBe('contention');
    expect(runs).toBe(TRANSACTION_ATTEMPTS);
  });

  it('when the connection of a transaction is ended, then StoreUnavailable comes back once, the client is discarded, and the next transaction works', async () => {
    let runs = 0;
    const pids = new Set<number>();
    const ended = inTransaction(pool, async (client) => {
      runs += 1;
      pids.add((await one<{ pid: number }>(client, 'SELECT pg_backend_pid() AS pid'))!.pid);
      await client.query('SELECT pg_terminate_backend(pg_backend_pid())');
    });
    const error = await ended.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect((error as StoreUnavailable).reason).toBe('connection_lost');
    expect(runs).toBe(1);
    // Given the chance to emit the connection's 'error' and 'end': nothing goes unhandled, and the pool opens a new one.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const next = await inTransaction(pool, async (client) => (await one<{ pid: number }>(client, 'SELECT pg_backend_pid() AS pid'))!.pid);
    expect(pids.has(next)).toBe(false);
  });

  it('when the connection of a transaction is ended from outside while it waits between statements, then the unit is StoreUnavailable and nothing goes unhandled', async () => {
    let runs = 0;
    const ended = inTransaction(pool, async (client) => {
      runs += 1;
      const { pid } = (await one<{ pid: number }>(client, 'SELECT pg_backend_pid() AS pid'))!;
      const closed = new Promise((resolve) => client.once('end', resolve));
      // Another connection ends this one while no statement of it runs: the server's notice reaches the checked-out
      // client as an 'error' event, not as a statement's error, and an 'error' event nobody listens to ends the process.
      await pool.query('SELECT pg_terminate_backend($1)', [pid]);
      await closed;
      await run(client, 'SELECT 1');
    });
    const error = await ended.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailable);
    expect((error as StoreUnavailable).reason).toBe('connection_lost');
    expect(runs).toBe(1);
    expect(await one<{ n: number }>(pool, 'SELECT 1 AS n')).toEqual({ n: 1 });
  });

  it('when a statement breaks a rule (a unique violation), then the error passes through as it was, after one run', async () => {
    let runs = 0;
    const duplicate = inTransaction(pool, async (client) => {
      runs += 1;
      await run(client, 'INSERT INTO retry_probe (id, n) VALUES (7, 0), (7, 0)');
    });
    const error = await duplicate.catch((caught: unknown) => caught);
    expect(isUniqueViolation(error)).toBe(true);
    expect(runs).toBe(1);
  });

  it('when the database refuses connections, then a statement on the pool is StoreUnavailable, not a raw socket error', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const away = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: 1 });
    try {
      const error = await one(away, 'SELECT 1').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreUnavailable);
      expect(((error as StoreUnavailable).cause as { code?: string }).code).toBe('ECONNREFUSED');
      const transaction = await inTransaction(away, async () => 1).catch((caught: unknown) => caught);
      expect(transaction).toBeInstanceOf(StoreUnavailable);
    } finally {
      await away.end();
    }
  });
});
