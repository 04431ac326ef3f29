import type Database from 'better-sqlite3';

const caches = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** A prepared statement, compiled once per database and SQL text (preparing costs more than running). */
export function statement(db: Database.Database, sql: string): Database.Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let prepared = cache.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    cache.set(sql, prepared);
  }
  return prepared;
}

const columnNames = new WeakMap<Database.Statement, readonly string[]>();

/**
 * Every row of a reading statement, as plain objects keyed by column name, as `all` returns them. better-sqlite3
 * builds its row objects through V8's API one property at a time, slower than reading the row as an array and
 * assembling the object here, where V8 reuses one object shape for every row (docs/benchmarks.md, Row reads).
 * For the reads that return many rows (the lists); a single row gains nothing worth the indirection.
 * As with `all`, a later column of the same name replaces an earlier one.
 */
export function allRows<Row>(prepared: Database.Statement, ...params: unknown[]): Row[] {
  let names = columnNames.get(prepared);
  if (!names) {
    names = prepared.columns().map((column) => column.name);
    columnNames.set(prepared, names);
  }
  // Raw mode is a setting of the prepared statement, which the cache shares: it is put back at once.
  let values: unknown[][];
  try {
    values = prepared.raw(true).all(...params) as unknown[][];
  } finally {
    prepared.raw(false);
  }
  return values.map((row) => {
    const object: Record<string, unknown> = {};
    for (let index = 0; index < names.length; index++) object[names[index]!] = row[index];
    return object as Row;
  });
}

type Runner = Database.Transaction<(change: () => unknown) => unknown>;
const runners = new WeakMap<Database.Database, Runner>();

/** better-sqlite3's transaction function for this connection that runs the change it is given, built once. */
function runner(db: Database.Database): Runner {
  let run = runners.get(db);
  if (!run) {
    run = db.transaction((change: () => unknown) => change());
    runners.set(db, run);
  }
  return run;
}

/**
 * Runs `change` in a transaction (`BEGIN`, or `BEGIN IMMEDIATE` when it will write after reading), or in a savepoint
 * when the connection is already in one: committed or released when it returns, rolled back when it throws, as
 * `db.transaction(change)()` does. That call builds four wrapper functions and their properties each time, and
 * every write runs at least one.
 */
export function transaction<R>(db: Database.Database, mode: 'deferred' | 'immediate', change: () => R): R {
  const run = runner(db);
  return (mode === 'immediate' ? run.immediate(change) : run(change)) as R;
}
