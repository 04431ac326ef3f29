/**
 * PostgreSQL databases for tests: each caller gets a database of its own with the migrated schema and no rows.
 * The first caller in a run builds a migrated template; a database is a copy of it.
 *
 * Nothing is built before a test asks for a database: a run of SQLite-only files needs no PostgreSQL at all. The
 * first caller of a run (in whichever worker) creates the template under an advisory lock, so two workers asking
 * at once build it once and neither copies it half migrated.
 *
 * Copying the template costs half a second to a second on a busy machine, and the HTTP suite on PostgreSQL
 * starts a test API for nearly every test file and many tests: so a database that has been released is
 * emptied and handed to the next caller in the same process instead of dropped. Emptied means: every session
 * on it ended (as DROP ... WITH (FORCE) would), its schema checked against a fresh copy's, and every row of
 * every table deleted in one transaction (schema_migrations excepted). There are no sequences to reset. A
 * database whose schema a test changed, or that cannot be emptied, is dropped instead. Nothing depends on what
 * an earlier run left behind: every name carries this run's id, and `dropTestDatabases` (global teardown)
 * removes the template and every database of the run still there.
 *
 * Knobs (docs/testing.md): `TEST_DATABASE_URL`, the server and a database to administer it from (default
 * postgres://postgres@127.0.0.1:5432/postgres); `TEST_DATABASE_PREFIX`, the start of every database name
 * (default `ff_`); `FORM_FUNNEL_TEST_RUN`, the run id (set by the global setup, inherited by the workers).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createPostgresStore } from '../../src/store/postgres/index.js';

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Set by the global setup so every test file of a run shares one template. */
const runId = process.env.FORM_FUNNEL_TEST_RUN ?? `r${process.pid}`;
const prefix = process.env.TEST_DATABASE_PREFIX ?? 'ff_';
// The names are written into SQL as identifiers: letters, digits and underscores only, lower case as PostgreSQL folds them.
for (const [knob, value] of [
  ['TEST_DATABASE_PREFIX', prefix],
  ['FORM_FUNNEL_TEST_RUN', runId],
] as const) {
  if (!/^[a-z0-9_]+$/.test(value)) throw new Error(`${knob} may hold lower-case letters, digits and underscores only: ${value}`);
}
const templateName = `${prefix}template_${runId}`;
const databasePrefix = `${prefix}test_${runId}_`;
/**
 * Left by each worker that reaches PostgreSQL, before it creates anything: the global teardown connects only when
 * it is there, so a run that never used PostgreSQL ends without it too.
 */
const usedMarker = join(tmpdir(), `form-funnel-${templateName}.used`);

const urlOf = (database: string) => {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
};

async function connected<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
const admin = <T>(work: (client: pg.Client) => Promise<T>) => connected(adminUrl, work);

/** Builds the migrated template unless a worker of this run already has; every worker waits for it on the lock. */
async function createTemplate(): Promise<void> {
  await admin(async (client) => {
    writeFileSync(usedMarker, '');
    // Held until this session ends: on the admin database, a key no server code uses there.
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [templateName]);
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [templateName]);
    if (rowCount) return;
    await client.query(`CREATE DATABASE ${templateName}`);
    try {
      // Migrated and with what a store installs when it opens (the row caches' triggers), so that a copy a store has
      // used still has the fresh schema's fingerprint, and is emptied and handed out again instead of dropped.
      const store = await createPostgresStore(urlOf(templateName), { max: 1 });
      await store.close();
    } catch (error) {
      await client.query(`DROP DATABASE IF EXISTS ${templateName} WITH (FORCE)`);
      throw error;
    }
  });
}
let template: Promise<void> | undefined;
function ensureTemplate(): Promise<void> {
  template ??= createTemplate().catch((error: unknown) => {
    template = undefined;
    throw error;
  });
  return template;
}

/** Global teardown: the template and every database of this run that is still there. */
export async function dropTestDatabases(): Promise<void> {
  if (!existsSync(usedMarker)) return;
  await admin(async (client) => {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [
      databasePrefix,
    ]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await client.query(`DROP DATABASE IF EXISTS ${templateName} WITH (FORCE)`);
  });
  rmSync(usedMarker, { force: true });
}

/** Tables, columns, constraints, indexes and functions of the public schema, as one hash. */
const fingerprintSql = `
  SELECT md5(concat_ws('|',
    (SELECT string_agg(concat_ws(':', table_name, column_name, data_type, column_default, is_nullable), ',' ORDER BY table_name, column_name)
       FROM information_schema.columns WHERE table_schema = 'public'),
    (SELECT string_agg(conrelid::regclass::text || ':' || pg_get_constraintdef(oid), ',' ORDER BY conrelid::regclass::text, conname)
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace),
    (SELECT string_agg(indexdef, ',' ORDER BY indexdef) FROM pg_indexes WHERE schemaname = 'public'),
    (SELECT string_agg(md5(pg_get_functiondef(oid)), ',' ORDER BY proname) FROM pg_proc WHERE pronamespace = 'public'::regnamespace),
    (SELECT string_agg(tgrelid::regclass::text || ':' || tgname, ',' ORDER BY tgname) FROM pg_trigger WHERE NOT tgisinternal)
  )) AS fingerprint`;

/** What a fresh copy looks like, learnt from the first one this process makes. */
interface FreshSchema {
  fingerprint: string;
  /** Every table but schema_migrations, the referencing ones before those they reference. */
  deletionOrder: string[];
}
let freshSchema: Promise<FreshSchema> | undefined;

async function readSchema(client: pg.Client): Promise<FreshSchema> {
  const fingerprint = (await client.query<{ fingerprint: string }>(fingerprintSql)).rows[0]!.fingerprint;
  const tables = (
    await client.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'",
    )
  ).rows.map((row) => row.name);
  const references = (
    await client.query<{ child: string; parent: string }>(
      `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint
        WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND conrelid <> confrelid`,
    )
  ).rows;
  // A table is deleted from once no table left still references it.
  const deletionOrder: string[] = [];
  const left = new Set(tables);
  while (left.size > 0) {
    const free = [...left].filter((table) => !references.some((reference) => reference.parent === table && left.has(reference.child)));
    if (free.length === 0) throw new Error(`foreign keys form a cycle among ${[...left].join(', ')}`);
    for (const table of free) {
      deletionOrder.push(table);
      left.delete(table);
    }
  }
  return { fingerprint, deletionOrder };
}

/** Emptied databases this process may hand out again. */
const spare: string[] = [];

async function copyTemplate(): Promise<string> {
  await ensureTemplate();
  const name = `${databasePrefix}${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${templateName}`));
  freshSchema ??= connected(urlOf(name), readSchema);
  await freshSchema;
  return name;
}

/** Ends every session on the database, then empties it if its schema is still the fresh one; false otherwise. */
async function empty(name: string): Promise<boolean> {
  try {
    const schema = await freshSchema!;
    return await connected(urlOf(name), async (client) => {
      await client.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      const { fingerprint } = (await client.query<{ fingerprint: string }>(fingerprintSql)).rows[0]!;
      if (fingerprint !== schema.fingerprint) return false;
      await client.query(`BEGIN; ${schema.deletionOrder.map((table) => `DELETE FROM "${table}";`).join(' ')} COMMIT;`);
      return true;
    });
  } catch {
    return false;
  }
}

/**
 * A migrated database with no rows, this caller's alone until `drop()`, after which it is gone for the caller
 * (emptied and kept for the next one in this process, or dropped; connections still open are closed by force).
 */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = spare.pop() ?? (await copyTemplate());
  let dropped = false;
  return {
    url: urlOf(name),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      if (await empty(name)) spare.push(name);
      else await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
