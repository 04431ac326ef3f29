/**
 * Rows nearly every request reads, kept in each process's memory on PostgreSQL as the SQLite store keeps them: the
 * API key behind the `Authorization` header (with its workspace), the form a request names, and whether some
 * publishable key allows the origin of a browser's preflight (read from `publishable_keys`). Several processes
 * (or machines) write the same tables, so each process must learn of the others' commits. The rule, and its bound:
 *
 * A row another process changed is no longer answered from this process's memory 600 ms after that commit at the
 * latest (`TRUST_MS`), and in practice once its notification arrives, a few milliseconds later. So a revoked key is
 * refused by every process within a second, as the SQLite deployment promises.
 *
 * - Triggers on the cached tables (statement-level; on `api_keys` and `publishable_keys`, a row-level UPDATE trigger
 *   that passes over the throttled `last_used_at` writes) send `NOTIFY form_funnel_cached_rows` with the table's
 *   name. PostgreSQL delivers a notification when its transaction commits, and never for one that rolled back. Each
 *   process listens on a connection of its own and empties the caches of that table when one arrives.
 * - The same connection asks for the version counter (a sequence the triggers advance) every 200 ms. An answer
 *   proves the connection alive: PostgreSQL sends a listening session the notifications of every transaction
 *   committed before a query ahead of that query's answer. The caches answer only while the last answered check was
 *   sent less than `TRUST_MS` ago; a connection that hangs or dropped makes every read go to the database. A counter
 *   that moved since the last check empties every cache, whether or not a notification said so.
 * - When the connection is lost (or a check goes unanswered for 2 s), every cache is emptied and passed by until a
 *   new connection listens again.
 * - This process's own writes are seen before the writing request answers, without waiting for the notification:
 *   the triggers also raise a NOTICE, which reaches the writing connection inside its statement. The table's caches
 *   are emptied then, and passed by (no answer, nothing remembered) until that connection goes back to the pool,
 *   after its COMMIT or ROLLBACK, when they are emptied again.
 * - A read that was loading while a cache was emptied does not remember what it loaded: it may predate the change.
 *
 * Only rows found are remembered; each cache holds a bounded number of rows and forgets the oldest first.
 */
import pg from 'pg';
import { deepFreeze, type Frozen } from '../../frozen.js';
import { advisoryLocks } from './advisory-locks.js';

/** How long a confirmed listening connection vouches for the caches (see the rule above). */
export const TRUST_MS = 600;
/** How often the listening connection is checked. */
const CHECK_INTERVAL_MS = 200;
/** A check unanswered this long means the connection hangs: it is dropped and a new one listens. */
const CHECK_GIVE_UP_MS = 2000;
/** Waits before listening again after the connection was lost, doubling up to the last. */
const RECONNECT_DELAYS_MS = [50, 200, 1000];

const channel = 'form_funnel_cached_rows';
const noticeMessage = 'form_funnel_cached_rows_changed';
const versionSequence = 'form_funnel_cache_version';
/** The tables whose rows are cached; a change to any of them reaches the caches that read it. */
export type CachedTable = 'api_keys' | 'workspaces' | 'forms' | 'publishable_keys';

const triggerFunction = `
BEGIN
  PERFORM nextval('${versionSequence}');
  PERFORM pg_notify('${channel}', TG_TABLE_NAME);
  RAISE NOTICE USING MESSAGE = '${noticeMessage}', DETAIL = TG_TABLE_NAME;
  RETURN NULL;
END`;

const triggers: Array<{ name: string; sql: string }> = [
  ...(['forms', 'workspaces'] as const).map((table) => ({
    name: `form_funnel_cache_${table}`,
    sql: `AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT`,
  })),
  // Keys: `last_used_at` is written at most once a minute per key, and nothing cached reads it.
  ...(['api_keys', 'publishable_keys'] as const).flatMap((table) => [
    { name: `form_funnel_cache_${table}`, sql: `AFTER INSERT OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT` },
    {
      name: `form_funnel_cache_${table}_update`,
      sql: `AFTER UPDATE ON ${table} FOR EACH ROW
          WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))`,
    },
  ]),
];

/** Installs the triggers unless they are there already (several processes start at once: one installs). */
async function installTriggers(pool: pg.Pool): Promise<void> {
  const installed = await pool.query<{ source: string | null; triggers: number }>(
    `SELECT (SELECT prosrc FROM pg_proc WHERE proname = $1) AS source,
            (SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'form_funnel_cache_%')::int AS triggers`,
    [noticeMessage],
  );
  if (installed.rows[0]?.source === triggerFunction && installed.rows[0].triggers === triggers.length) return;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [advisoryLocks.migrations]);
    await client.query(`CREATE SEQUENCE IF NOT EXISTS ${versionSequence}`);
    await client.query(`CREATE OR REPLACE FUNCTION ${noticeMessage}() RETURNS trigger LANGUAGE plpgsql AS $body$${triggerFunction}$body$`);
    for (const trigger of triggers) {
      await client.query(`CREATE OR REPLACE TRIGGER ${trigger.name} ${trigger.sql} EXECUTE FUNCTION ${noticeMessage}()`);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** How much one cache holds: at most `rows` rows, and when `weigh` is given, rows weighing at most `weight` together. */
export interface RowCacheLimits<T> {
  rows: number;
  weigh?: (row: T) => number;
  weight?: number;
}

export interface RowCache<T> {
  /** The row under `key`: from memory while it is known to be current, otherwise from `load` (remembered if found). */
  get(key: string, load: () => Promise<T | undefined>): Promise<Frozen<T> | undefined>;
}

export interface RowCaches {
  create<T>(tables: readonly CachedTable[], limits: RowCacheLimits<T>): RowCache<T>;
  close(): Promise<void>;
}

/** One cache's rows with their weights; `epoch` changes whenever it is emptied. */
class Rows<T> {
  readonly entries = new Map<string, { row: Frozen<T>; weight: number }>();
  weight = 0;
  epoch = 0;
  constructor(readonly tables: readonly CachedTable[]) {}
  clear(): void {
    this.entries.clear();
    this.weight = 0;
    this.epoch++;
  }
  /** Adds a row, forgetting the oldest until both limits hold; a row heavier than the whole budget is not kept. */
  add(key: string, row: Frozen<T>, weight: number, limits: RowCacheLimits<T>): void {
    const budget = limits.weight ?? Number.POSITIVE_INFINITY;
    if (weight > budget) return;
    while (this.entries.size > 0 && (this.entries.size >= limits.rows || this.weight + weight > budget)) {
      const oldest = this.entries.keys().next().value!;
      this.weight -= this.entries.get(oldest)!.weight;
      this.entries.delete(oldest);
    }
    this.entries.set(key, { row, weight });
    this.weight += weight;
  }
}

/**
 * The caches of one store: installs the triggers, listens on a connection of its own (made with the pool's
 * settings) and watches the pool's connections for this process's own writes.
 */
export async function postgresRowCaches(pool: pg.Pool): Promise<RowCaches> {
  await installTriggers(pool);
  const all: Array<Rows<unknown>> = [];
  /** Per table, how many of this process's connections wrote it in a transaction not yet ended. */
  const writing = new Map<CachedTable, number>();
  /** Per pool connection, the cached tables it wrote in its current transaction. */
  const written = new WeakMap<pg.PoolClient, Set<CachedTable>>();
  const watched = new WeakSet<pg.PoolClient>();

  const emptyTable = (table: string) => {
    for (const rows of all) if (rows.tables.includes(table as CachedTable)) rows.clear();
  };
  const emptyAll = () => {
    for (const rows of all) rows.clear();
  };

  pool.on('acquire', (client) => {
    if (watched.has(client)) return;
    watched.add(client);
    client.on('notice', (notice) => {
      if (notice.message !== noticeMessage || !notice.detail) return;
      const table = notice.detail as CachedTable;
      emptyTable(table);
      const tables = written.get(client) ?? new Set<CachedTable>();
      written.set(client, tables);
      if (tables.has(table)) return;
      tables.add(table);
      writing.set(table, (writing.get(table) ?? 0) + 1);
    });
  });
  // A connection goes back to the pool once its transaction has committed or rolled back (or it broke).
  pool.on('release', (_error, client) => {
    const tables = written.get(client);
    if (!tables) return;
    written.delete(client);
    for (const table of tables) {
      writing.set(table, writing.get(table)! - 1);
      emptyTable(table);
    }
  });

  // The listening connection, and what it last confirmed.
  let listener: pg.Client | undefined;
  let listening = false;
  let confirmedAt = Number.NEGATIVE_INFINITY;
  let version: string | undefined;
  let closed = false;
  /** When the check still unanswered was sent (`performance.now()`), if one is. */
  let checkingSince: number | undefined;
  let reconnects = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;

  const lost = (client: pg.Client) => {
    if (listener !== client) return;
    listener = undefined;
    listening = false;
    checkingSince = undefined;
    emptyAll();
    client.end().catch(() => {});
    if (closed) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(reconnects++, RECONNECT_DELAYS_MS.length - 1)];
    reconnectTimer = setTimeout(listen, delay);
    reconnectTimer.unref();
  };
  const check = async (client: pg.Client) => {
    const sentAt = performance.now();
    const { rows } = await client.query<{ last_value: string }>(`SELECT last_value::text FROM ${versionSequence}`);
    if (listener !== client) return;
    const now = rows[0]!.last_value;
    if (version !== undefined && now !== version) emptyAll();
    version = now;
    confirmedAt = sentAt;
  };
  async function listen(): Promise<void> {
    const client = new pg.Client({ ...pool.options, application_name: 'form-funnel cache listener' } as pg.ClientConfig);
    listener = client;
    client.on('error', () => lost(client));
    client.on('end', () => lost(client));
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload) emptyTable(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
      // Whatever was committed while nobody listened: forgotten, and the counter read afresh.
      version = undefined;
      await check(client);
      emptyAll();
      listening = listener === client;
      reconnects = 0;
    } catch {
      lost(client);
    }
  }
  await listen();

  const heartbeat = setInterval(() => {
    const client = listener;
    if (!client || !listening) return;
    if (checkingSince !== undefined) {
      if (performance.now() - checkingSince > CHECK_GIVE_UP_MS) lost(client);
      return;
    }
    checkingSince = performance.now();
    check(client)
      .catch(() => lost(client))
      .finally(() => {
        if (listener === client) checkingSince = undefined;
      });
  }, CHECK_INTERVAL_MS);
  heartbeat.unref();

  const trusted = (rows: Rows<unknown>) =>
    listening && performance.now() - confirmedAt < TRUST_MS && rows.tables.every((table) => !writing.get(table));

  return {
    create<T>(tables: readonly CachedTable[], limits: RowCacheLimits<T>): RowCache<T> {
      const rows = new Rows<T>(tables);
      all.push(rows as Rows<unknown>);
      return {
        async get(key, load) {
          if (trusted(rows)) {
            const known = rows.entries.get(key);
            if (known !== undefined) return known.row;
          }
          const epoch = rows.epoch;
          const loaded: T | undefined = await load();
          if (loaded === undefined) return undefined;
          const frozen = deepFreeze<T>(loaded);
          // Emptied while loading, or not current: what was loaded may predate the change, so it is not kept.
          if (rows.epoch === epoch && trusted(rows)) rows.add(key, frozen, limits.weigh?.(loaded) ?? 0, limits);
          return frozen;
        },
      };
    },
    async close() {
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(reconnectTimer);
      const client = listener;
      listener = undefined;
      listening = false;
      await client?.end().catch(() => {});
    },
  };
}
