/**
 * The periodic-job lock: among processes sharing one PostgreSQL database, exactly one runs the periodic jobs at
 * a time, and another takes over when it goes away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobLock, singleProcessJobLock } from '../../src/store/job-lock.js';
import { advisoryLocks } from '../../src/store/postgres/advisory-locks.js';
import { postgresJobLock } from '../../src/store/postgres/job-lock.js';
import { createTestDatabase } from '../support/postgres.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const locks: JobLock[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(locks.map((lock) => lock.close()));
  await database.drop();
});

const lockOf = () => {
  const lock = postgresJobLock(database.url);
  locks.push(lock);
  return lock;
};

describe('the periodic-job lock', () => {
  it('when the service takes advisory locks, then no two uses share a key (one would stall the other)', () => {
    expect(new Set(Object.values(advisoryLocks)).size).toBe(Object.keys(advisoryLocks).length);
  });

  it('when one process holds the job lock, then delivery claims in every process still go ahead', async () => {
    const holder = lockOf();
    const jobs: string[] = [];
    expect(await holder.runIfHolder(async () => jobs.push('sweep'))).toBe(true);
    const { createPostgresStore } = await import('../../src/store/postgres/index.js');
    const store = await createPostgresStore(database.url, { max: 1 });
    try {
      const claimed = store.integrations.claimDue({
        now: new Date().toISOString(),
        leaseUntil: new Date(Date.now() + 60_000).toISOString(),
        limit: 10,
        perIntegration: 5,
        perWorkspace: 10,
      });
      const stalled = new Promise((resolve) => setTimeout(() => resolve('stalled'), 5000));
      expect(await Promise.race([claimed, stalled])).toEqual([]);
    } finally {
      await store.close();
      await holder.close();
    }
  });

  it('when several processes run the same job together, then it runs in one of them and the others skip it', async () => {
    const processes = [lockOf(), lockOf(), lockOf()];
    const runs: number[] = [];
    const ran = await Promise.all(processes.map((lock, index) => lock.runIfHolder(async () => runs.push(index))));
    expect(runs).toHaveLength(1);
    expect(ran.filter(Boolean)).toHaveLength(1);

    // The holder keeps the lock from one run to the next; the others keep skipping.
    const holder = ran.indexOf(true);
    const again = await Promise.all(processes.map((lock) => lock.runIfHolder(async () => {})));
    expect(again).toEqual(processes.map((_, index) => index === holder));

    // Once the holder is gone, the next process that asks takes over.
    await processes[holder]!.close();
    expect(await processes[holder]!.runIfHolder(async () => {})).toBe(false);
    const next = processes.find((_, index) => index !== holder)!;
    expect(await next.runIfHolder(async () => {})).toBe(true);
  });

  it('when the database cannot be reached, then the job is skipped, not thrown', async () => {
    const unreachable = postgresJobLock('postgres://postgres@127.0.0.1:1/none');
    locks.push(unreachable);
    const runs: string[] = [];
    expect(await unreachable.runIfHolder(async () => runs.push('sweep'))).toBe(false);
    expect(runs).toEqual([]);
  });

  it('when a job fails, then its error reaches the caller and the lock is kept', async () => {
    const lock = lockOf();
    // The earlier test's processes may still hold it; take it once they are all closed.
    await Promise.all(locks.filter((other) => other !== lock).map((other) => other.close()));
    await expect(lock.runIfHolder(async () => Promise.reject(new Error('sweep failed')))).rejects.toThrow('sweep failed');
    expect(await lock.runIfHolder(async () => {})).toBe(true);
  });

  it('when the store is embedded (SQLite, one process), then every run runs', async () => {
    const lock = singleProcessJobLock();
    let runs = 0;
    for (let index = 0; index < 3; index++) await lock.runIfHolder(async () => runs++);
    expect(runs).toBe(3);
  });
});
