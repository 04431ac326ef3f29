/**
 * A PostgreSQL database of its own for each test file: created from a migrated template that the first caller
 * in a run builds, dropped when the file's tests end. Nothing depends on what an earlier run left behind:
 * every name carries this run's id, and `dropTestTemplate` (global teardown) removes the template.
 *
 * The server is the machine's PostgreSQL (`TEST_DATABASE_URL`, default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgres } from '../../src/store/postgres/database.js';

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Set by the global setup so every test file of a run shares one template. */
const runId = process.env.FORM_FUNNEL_TEST_RUN ?? `r${process.pid}`;
const templateName = `ff_template_${runId}`;

const urlOf = (database: string) => {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
};

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Builds the migrated template once per run (global setup calls this before any test file starts). */
export async function createTestTemplate(): Promise<void> {
  await admin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${templateName}`);
    await client.query(`CREATE DATABASE ${templateName}`);
  });
  const pool = await openPostgres(urlOf(templateName), { max: 1 });
  await pool.end();
}

export async function dropTestTemplate(): Promise<void> {
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${templateName} WITH (FORCE)`));
}

/** A fresh, migrated database; `drop()` removes it (connections still open are closed by force). */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ff_test_${runId}_${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${templateName}`));
  return {
    url: urlOf(name),
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}
