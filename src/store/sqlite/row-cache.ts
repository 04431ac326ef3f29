/**
 * Rows nearly every request reads, kept in memory without ever answering stale: the API key behind the
 * `Authorization` header (with its workspace) and the form a request names. On SQLite the cost of such a read is
 * mostly not the lookup but the read transaction around it (two lock system calls on the WAL's shared memory), so
 * a request that reads both pays for two; with these caches it pays for one `PRAGMA data_version`, or none.
 *
 * A cached row can go stale in two ways, and both are caught before the cache answers:
 * - This connection writes one of the tables the cache reads (any INSERT, UPDATE or DELETE, whichever code path
 *   makes it: a revocation, a transfer, a workspace's new limits, a cascade). Temporary triggers on those tables
 *   call back into this module inside the writing statement, and the cache is emptied there and then.
 * - Another connection commits (the admin command, another process on the same file). SQLite then changes
 *   `PRAGMA data_version`, which is read before the cache answers, and a change empties every cache of the
 *   connection. The checkpointer's connection commits nothing, and its passive checkpoints leave the value alone.
 *
 * One `data_version` read serves the rest of the event-loop turn it was made in: the callback it was made in and
 * every tick and promise continuation that runs before the loop reads sockets again. The requests still being
 * handled in that turn were all received before it was made (sockets are only read between turns), so answering
 * them from a state checked after they arrived is answering them as if they had run at that instant. A commit
 * made in another process is therefore seen by every request that follows it. (Only a second connection in this
 * same process committing within one turn would be seen a turn late; the server has none that writes, and a second
 * server on the file is refused when it opens it: server-lease.ts.)
 *
 * Only committed rows are remembered: inside a transaction of this connection the cache is passed by, since what
 * that transaction wrote may still be rolled back. Absent rows are never remembered. A read whose cache was emptied
 * (or whose table had a row changed) while it was loading does not remember what it loaded: the change may be newer
 * than what it read (a load is synchronous, so only a load that writes a watched table meets this, but the rule is
 * the PostgreSQL cache's too). Each cache holds a bounded number of rows and forgets the oldest first.
 *
 * A cache of a table's rows by id (`createById`) is emptied row by row instead: its triggers name the row an
 * INSERT, UPDATE or DELETE touched, and only that row is forgotten. Such a table is written all the time (a
 * submission created forgets nothing another request reads), where emptying the whole cache on each write would
 * leave it empty. Its reads take many rows at once (a page of a list), inside one read transaction with the query
 * that chose them, and checked against that transaction's state: the page's order and its rows are of one moment.
 *
 * The PostgreSQL store keeps keys and forms the same way, told of other processes' commits by LISTEN/NOTIFY
 * instead of `data_version`: src/store/postgres/row-cache.ts.
 */
import type Database from 'better-sqlite3';
import type { Frozen } from '../../frozen.js';
import { transaction } from './statements.js';

/**
 * The rows a cache hands out are shared by every request that reads them until they change: they are frozen
 * (`deepFreeze`), and `load` must return them so, or the cache does not compile.
 */
export interface RowCache<T> {
  /** The row under `key`, from memory when it is known to be current, otherwise from `load` (remembered if found). */
  get(key: string, load: () => Frozen<T> | undefined): Frozen<T> | undefined;
}

/** How much one cache holds: at most `rows` rows, and when `weigh` is given, rows weighing at most `weight` together. */
export interface RowCacheLimits<T> {
  rows: number;
  weigh?: (row: T) => number;
  weight?: number;
}

/**
 * The rows with these ids, in their order: from memory where known to be current, the rest from `load`, which is
 * given the missing ids and returns what it found (remembered). An id `load` did not find is left out.
 */
export type RowsWithIds<T> = (ids: readonly string[], load: (missing: string[]) => Map<string, Frozen<T>>) => Array<Frozen<T>>;

/** Rows of one table by id. */
export interface RowsById<T> {
  /**
   * Runs `read` in one read transaction (a savepoint, passing the cache by, when this connection is already in a
   * transaction): the table's rows it takes through `rows` are checked against the state its own queries see.
   */
  read<R>(read: (rows: RowsWithIds<T>) => R): R;
}

interface ConnectionCaches {
  create<T>(tables: readonly string[], limits: RowCacheLimits<T>): RowCache<T>;
  createById<T>(table: string, limits: RowCacheLimits<T>): RowsById<T>;
}

/** One cache's rows, with their weights and the total; `epoch` changes whenever it is emptied or a row changes. */
class Rows<T> {
  readonly entries = new Map<string, { row: Frozen<T>; weight: number }>();
  weight = 0;
  epoch = 0;
  clear(): void {
    this.entries.clear();
    this.weight = 0;
    this.epoch++;
  }
  /** Forgets a changed row; the epoch changes even when the row is not here: it may be the one a read is loading. */
  delete(key: string): void {
    this.epoch++;
    this.#forget(key);
  }
  #forget(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }
  /** Adds a row, forgetting the oldest until both limits hold; a row heavier than the whole budget is not kept. */
  add(key: string, row: Frozen<T>, limits: RowCacheLimits<T>): void {
    const weight = limits.weigh?.(row) ?? 0;
    const budget = limits.weight ?? Number.POSITIVE_INFINITY;
    if (weight > budget) return;
    while (this.entries.size > 0 && (this.entries.size >= limits.rows || this.weight + weight > budget)) {
      this.#forget(this.entries.keys().next().value!);
    }
    this.entries.set(key, { row, weight });
    this.weight += weight;
  }
}

const connections = new WeakMap<Database.Database, ConnectionCaches>();
/** The SQL functions the triggers call; the names are this module's, so they cannot meet an application's. */
const changedFunction = 'form_funnel_cached_rows_changed';
const changedRowFunction = 'form_funnel_cached_row_changed';

/** The caches of one connection: one set of triggers, one `data_version` reading, however many stores share it. */
export function rowCaches(db: Database.Database): ConnectionCaches {
  let caches = connections.get(db);
  if (!caches) {
    caches = connectionCaches(db);
    connections.set(db, caches);
  }
  return caches;
}

function connectionCaches(db: Database.Database): ConnectionCaches {
  const byTable = new Map<string, Array<Rows<unknown>>>();
  const byRowOfTable = new Map<string, Array<Rows<unknown>>>();
  const all: Array<Rows<unknown>> = [];
  db.function(changedFunction, { deterministic: false, varargs: false }, (table: unknown) => {
    for (const rows of byTable.get(String(table)) ?? []) rows.clear();
    return null;
  });
  db.function(changedRowFunction, { deterministic: false, varargs: false }, (table: unknown, id: unknown) => {
    for (const rows of byRowOfTable.get(String(table)) ?? []) rows.delete(String(id));
    return null;
  });

  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let seenVersion: unknown = dataVersion.get();
  let checkedThisTurn = false;
  const endTurn = () => {
    checkedThisTurn = false;
  };
  const endTurnOnceSettled = () => process.nextTick(endTurn);
  /** Empties every cache if another connection has committed since the last check. */
  const catchUp = () => {
    if (checkedThisTurn) return;
    check();
  };
  /** The check itself, whenever this turn made it: inside a read transaction, against that transaction's state. */
  const check = () => {
    const version = dataVersion.get();
    if (version !== seenVersion) {
      seenVersion = version;
      for (const rows of all) rows.clear();
    }
    if (checkedThisTurn) return;
    checkedThisTurn = true;
    // Node runs a callback's ticks before its promise continuations, so a tick queued here, from a request's first,
    // synchronous steps (authentication), would end the turn before the request's own continuation (its form
    // read) runs, and that read would check again. Queued from a microtask instead, the tick runs once the
    // microtask queue is empty: after this turn's continuations and before the loop goes back to the sockets.
    queueMicrotask(endTurnOnceSettled);
  };

  const watch = (table: string, rows: Rows<unknown>) => {
    if (!byTable.has(table)) {
      byTable.set(table, []);
      for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
        db.exec(
          `CREATE TEMP TRIGGER IF NOT EXISTS form_funnel_cache_${table}_${event.toLowerCase()} AFTER ${event} ON main.${table}
           BEGIN SELECT ${changedFunction}('${table}'); END`,
        );
      }
    }
    byTable.get(table)!.push(rows);
  };
  // INSERT names its new row too: an INSERT OR REPLACE deletes the row it replaces without a DELETE trigger.
  const watchRows = (table: string, rows: Rows<unknown>) => {
    if (!byRowOfTable.has(table)) {
      byRowOfTable.set(table, []);
      for (const [event, row] of [
        ['INSERT', 'NEW'],
        ['UPDATE', 'OLD'],
        ['DELETE', 'OLD'],
      ] as const) {
        db.exec(
          `CREATE TEMP TRIGGER IF NOT EXISTS form_funnel_cache_${table}_row_${event.toLowerCase()} AFTER ${event} ON main.${table}
           BEGIN SELECT ${changedRowFunction}('${table}', ${row}.id); END`,
        );
      }
    }
    byRowOfTable.get(table)!.push(rows);
  };

  return {
    create<T>(tables: readonly string[], limits: RowCacheLimits<T>): RowCache<T> {
      const rows = new Rows<T>();
      all.push(rows as Rows<unknown>);
      for (const table of tables) watch(table, rows as Rows<unknown>);
      return {
        get(key, load) {
          if (db.inTransaction) return load();
          catchUp();
          const known = rows.entries.get(key);
          if (known !== undefined) return known.row;
          const epoch = rows.epoch;
          const loaded = load();
          // Emptied while loading (the load wrote a watched table): what it read may predate the write.
          if (loaded !== undefined && rows.epoch === epoch) rows.add(key, loaded, limits);
          return loaded;
        },
      };
    },
    createById<T>(table: string, limits: RowCacheLimits<T>): RowsById<T> {
      const rows = new Rows<T>();
      all.push(rows as Rows<unknown>);
      watchRows(table, rows as Rows<unknown>);
      /** The rows of `ids` in their order, as `rowOf` gives them, leaving out the ids it has none for. */
      const inOrder = (ids: readonly string[], rowOf: (id: string, index: number) => Frozen<T> | undefined): Array<Frozen<T>> => {
        const page: Array<Frozen<T>> = [];
        ids.forEach((id, index) => {
          const row = rowOf(id, index);
          if (row !== undefined) page.push(row);
        });
        return page;
      };
      const uncached: RowsWithIds<T> = (ids, load) => {
        const loaded = load([...ids]);
        return inOrder(ids, (id) => loaded.get(id));
      };
      const cached: RowsWithIds<T> = (ids, load) => {
        // Whatever this turn checked before: the transaction may see commits made since.
        check();
        // The known rows are taken, at their places, before any is added: adding may forget some of them.
        const known: Array<Frozen<T> | undefined> = [];
        const missing: string[] = [];
        for (const id of ids) {
          const row = rows.entries.get(id)?.row;
          known.push(row);
          if (row === undefined) missing.push(id);
        }
        if (missing.length === 0) return known as Array<Frozen<T>>;
        const epoch = rows.epoch;
        const loaded = load(missing);
        // A row forgotten while loading (the load wrote the table): what was read may predate it, so none is kept.
        if (rows.epoch === epoch) for (const [id, row] of loaded) rows.add(id, row, limits);
        // The loaded rows go at the places of the missing ids; an id no longer stored is left out.
        return inOrder(ids, (id, index) => known[index] ?? loaded.get(id));
      };
      return {
        read(work) {
          // Inside a transaction of this connection, which may have written: passed by, as every cache is.
          const rowsOf = db.inTransaction ? uncached : cached;
          return transaction(db, 'deferred', () => work(rowsOf));
        },
      };
    },
  };
}
