import pg from 'pg';
import { migrate } from './migrations.js';

/**
 * Opens a pool on `DATABASE_URL` with the settings the service relies on: every session in UTC, timestamps
 * read back as the ISO 8601 strings the API speaks, 64-bit counts as numbers (they stay far below 2^53), and
 * the versioned migrations applied before the first query. Several processes may start at once: the
 * migrations serialise on an advisory lock, so each runs exactly once.
 */
export async function openPostgres(url: string, options: { max?: number } = {}): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, types: postgresTypes, options: '-c TimeZone=UTC' });
  // An idle client's connection error (the server restarted) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  await migrate(pool);
  return pool;
}

const parseTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);
const postgresTypes = new pg.TypeOverrides();
postgresTypes.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (value: string) => (parseTimestamp(value) as Date).toISOString());
postgresTypes.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/** Errors worth retrying the whole transaction for: a serialization failure or a deadlock. */
const retryable = new Set(['40001', '40P01']);

/**
 * Runs `work` in one transaction on one client: COMMIT when it resolves, ROLLBACK when it throws. A
 * serialization failure or deadlock retries the whole unit a few times, since the work is written to be
 * repeatable (it reads what it writes inside the transaction).
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if (attempt < attempts && retryable.has((error as { code?: string }).code ?? '')) continue;
      throw error;
    } finally {
      client.release();
    }
  }
}

/** Either the pool (one statement, its own transaction) or the client of a transaction in progress. */
export type Queryable = pg.Pool | pg.PoolClient;

/** The rows a statement returns. */
export async function all<Row>(db: Queryable, sql: string, params: readonly unknown[] = []): Promise<Row[]> {
  return (await db.query(sql, params as unknown[])).rows as Row[];
}

/** The first row a statement returns, if any. */
export async function one<Row>(db: Queryable, sql: string, params: readonly unknown[] = []): Promise<Row | undefined> {
  return (await db.query(sql, params as unknown[])).rows[0] as Row | undefined;
}

/** Runs a statement; returns how many rows it changed. */
export async function run(db: Queryable, sql: string, params: readonly unknown[] = []): Promise<number> {
  return (await db.query(sql, params as unknown[])).rowCount ?? 0;
}

/**
 * Collects a statement's parameters while its SQL is built: `add` returns the placeholder (`$n`) for a value,
 * so conditions can be appended in any order without counting positions by hand.
 */
export class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A unique-constraint violation, optionally of one named constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const { code, constraint: name } = error as { code?: string; constraint?: string };
  return code === '23505' && (constraint === undefined || name === constraint);
}
