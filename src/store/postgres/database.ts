import pg from 'pg';
import { StoreUnavailable } from '../errors.js';
import { migrate } from './migrations.js';

/**
 * How long a request waits for a connection (a free one of the pool, or a new one to the server) before the store
 * reports itself unavailable: a database that is away answers in this time, not when the client gives up.
 */
export const CONNECTION_TIMEOUT_MS = 2000;

/**
 * Opens a pool on `DATABASE_URL` with the settings the service relies on: every session in UTC, timestamps
 * read back as the ISO 8601 strings the API speaks, 64-bit counts as numbers (they stay far below 2^53), and
 * the versioned migrations applied before the first query. Several processes may start at once: the
 * migrations serialise on an advisory lock, so each runs exactly once.
 */
export async function openPostgres(url: string, options: PoolOptions = {}): Promise<pg.Pool> {
  const pool = createPool(url, options);
  await migrate(pool);
  return pool;
}

export interface PoolOptions {
  max?: number;
  connectionTimeoutMs?: number;
}

/**
 * The pool `openPostgres` migrates, with an 'error' listener on every client for its whole life. node-postgres emits
 * 'error' on a client whose connection fails, and an 'error' event nobody listens to ends the process. pg-pool
 * listens while a client is idle and leaves it to whoever checked the client out, but a checkout resolves a promise:
 * an error that arrives in the same chunk as the new connection's ReadyForQuery (a backend terminated as it started)
 * is emitted before the caller's `await` resumes, with nobody listening. The client's own listener only absorbs the
 * event: the error still reaches its queries, and a client that is no longer queryable is discarded on release.
 */
export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? CONNECTION_TIMEOUT_MS,
    types: postgresTypes,
    options: '-c TimeZone=UTC',
  });
  // An idle client's connection error (the server restarted): the pool has discarded it and replaces it.
  pool.on('error', () => {});
  // 'connect' comes with a new client, before the pool hands it out (above).
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

const parseTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);
const postgresTypes = new pg.TypeOverrides();
postgresTypes.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (value: string) => (parseTimestamp(value) as Date).toISOString());
postgresTypes.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/** SQLSTATEs worth running the whole unit again for: a serialization failure, a deadlock. */
const collisions = new Set(['40001', '40P01']);

/**
 * Errors that say the connection (not the statement) failed: its socket broke or was refused, the server ended the
 * session (57P01 admin_shutdown, as `pg_terminate_backend` does; 57P02 crash_shutdown; 57P03 cannot_connect_now,
 * while it starts), class 08 (connection exceptions), a server out of connection slots (53300), and node-postgres's
 * own reports of a connection that ended, timed out while connecting, or was used after it broke.
 */
const connectionCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const connectionMessages =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Cannot use a pool after calling end)/;

const codeOf = (error: unknown): string => String((error as { code?: unknown } | null)?.code ?? '');

export function isConnectionError(error: unknown): boolean {
  if (error instanceof StoreUnavailable) return error.reason === 'connection_lost';
  const code = codeOf(error);
  return connectionCodes.has(code) || code.startsWith('08') || (error instanceof Error && connectionMessages.test(error.message));
}

/** What leaves the store: a connection failure as `StoreUnavailable`, anything else as it was. */
const storeErrorOf = (error: unknown): unknown =>
  isConnectionError(error) && !(error instanceof StoreUnavailable) ? new StoreUnavailable('connection_lost', { cause: error }) : error;

/** Runs of a colliding unit, the first included, before the store gives up and reports contention. */
export const TRANSACTION_ATTEMPTS = 4;

/**
 * Waits before another run of a collided unit: a random time up to 5, 10, 20 ms (full jitter), so units that
 * collided do not meet again in step; three waits add at most 35 ms to a request.
 */
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** (attempt - 1)));

/**
 * Runs `unit` again after a serialization failure or deadlock (it is written to be repeatable: it reads what it
 * writes inside its transaction, or is one statement that PostgreSQL rolled back whole), at most `attempts` times
 * in all; then the store is unavailable (contention). A connection failure is not run again: the client is told.
 */
async function withRetries<T>(unit: () => Promise<T>, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await unit();
    } catch (error) {
      if (!collisions.has(codeOf(error))) throw storeErrorOf(error);
      if (attempt >= attempts) throw new StoreUnavailable('contention', { cause: error });
      await backoff(attempt);
    }
  }
}

/**
 * One run of a transaction on one client: COMMIT when `work` resolves, ROLLBACK when it throws. While the client is
 * out of the pool it has an 'error' listener: node-postgres emits 'error' on a checked-out client whose
 * connection dies, and an 'error' event without a listener ends the process. A client whose connection failed
 * goes back with the error, so the pool discards it and opens a fresh one for the next caller.
 */
async function transactionOnce<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    if (isConnectionError(error)) broken ??= error as Error;
    else if (!broken) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken ??= rollbackError;
      });
    }
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/**
 * Runs `work` in one transaction on one client. A serialization failure or deadlock runs the whole unit again a
 * few times (`withRetries`); a lost connection is `StoreUnavailable`, never a crash.
 */
export function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, attempts = TRANSACTION_ATTEMPTS): Promise<T> {
  return withRetries(() => transactionOnce(pool, work), attempts);
}

/**
 * A statement: on the pool it is its own transaction, retried as one on a collision; on a transaction's client
 * its errors go to the transaction (`inTransaction` decides), a lost connection already named as such.
 */
async function query(db: Queryable, sql: Statement, params: readonly unknown[]): Promise<pg.QueryResult> {
  const values = params as unknown[];
  const send = () => (typeof sql === 'string' ? db.query(sql, values) : db.query({ ...sql, values }));
  if (db instanceof pg.Pool) return withRetries(send, TRANSACTION_ATTEMPTS);
  try {
    return await send();
  } catch (error) {
    throw storeErrorOf(error);
  }
}

/**
 * SQL text, or a named statement: each connection parses and plans a named one once and then only binds its
 * values, which matters for a statement as long as a whole create. One name must always carry the same text.
 */
export type Statement = string | { name: string; text: string };

/** Either the pool (one statement, its own transaction) or the client of a transaction in progress. */
export type Queryable = pg.Pool | pg.PoolClient;

/** The rows a statement returns. */
export async function all<Row>(db: Queryable, sql: Statement, params: readonly unknown[] = []): Promise<Row[]> {
  return (await query(db, sql, params)).rows as Row[];
}

/** The first row a statement returns, if any. */
export async function one<Row>(db: Queryable, sql: Statement, params: readonly unknown[] = []): Promise<Row | undefined> {
  return (await query(db, sql, params)).rows[0] as Row | undefined;
}

/** Runs a statement; returns how many rows it changed. */
export async function run(db: Queryable, sql: Statement, params: readonly unknown[] = []): Promise<number> {
  return (await query(db, sql, params)).rowCount ?? 0;
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

/** A foreign-key violation of one named constraint: the row refers to one that does not exist (any more). */
export function isForeignKeyViolation(error: unknown, constraint: string): boolean {
  const { code, constraint: name } = error as { code?: string; constraint?: string };
  return code === '23503' && name === constraint;
}

/** A unique-constraint violation, optionally of one named constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const { code, constraint: name } = error as { code?: string; constraint?: string };
  return code === '23505' && (constraint === undefined || name === constraint);
}
