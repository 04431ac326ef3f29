/** For race tests on PostgreSQL: how many backends wait for a lock, and waiting until a condition holds. */
import type pg from 'pg';

/** Backends of the pool's database waiting for a lock (a row, a relation, a transaction). */
export async function lockWaiters(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return Number(rows[0]!.n);
}

/** Polls `condition` every 20 ms until it holds; throws when it has not within `timeoutMs`. */
export async function until(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  for (const started = Date.now(); !(await condition()); ) {
    if (Date.now() - started > timeoutMs) throw new Error(`the condition did not hold within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
