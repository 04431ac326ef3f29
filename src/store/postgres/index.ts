import type pg from 'pg';
import { peopleStore } from '../people/index.js';
import type { Store } from '../types.js';
import { foldAggregateDeltas } from './aggregate-deltas.js';
import { postgresApiKeys } from './api-keys.js';
import { insertAuditEvent, postgresAuditEvents } from './audit-events.js';
import { all, inTransaction, openPostgres, run } from './database.js';
import { postgresEvents } from './events.js';
import { postgresFolders } from './folders.js';
import { postgresFormLogos } from './form-logos.js';
import { postgresForms } from './forms.js';
import { postgresIdempotency } from './idempotency.js';
import { integrationTestData, postgresIntegrations } from './integrations.js';
import { migrate } from './migrations.js';
import { postgresOAuth } from './oauth.js';
import { postgresProcedures } from './procedures.js';
import { postgresPublicOrigins } from './public-origins.js';
import { postgresPublishableKeys } from './publishable-keys.js';
import { postgresRescoreJobs } from './rescore-jobs.js';
import { postgresRowCaches } from './row-cache.js';
import { postgresSpam } from './spam.js';
import { postgresSubmissions, submissionTestData } from './submissions.js';
import { postgresTeam } from './team.js';
import { postgresTransfers } from './transfers.js';
import { postgresUsage } from './usage.js';
import { postgresWorkspaces } from './workspaces.js';

/** A test form or folder is deleted only if the reset locked it: its parameter is then the locked rows' ids. */
type Locked = 'forms' | 'folders';

/**
 * Test-mode rows of a workspace, deleted by "Reset test data", children before parents (parameter: workspace id,
 * or the ids the reset locked). The parents are locked first: a create in flight holds its form (and a delivery its
 * integration) until it commits, so a reset that deleted the children first would meet that create's new child when
 * it deletes the parent (23503). Locked first, the reset waits for the creates already in flight and deletes their
 * rows too; a create that comes later waits for the reset and then finds its form gone (404).
 *
 * Forms and folders are deleted by the ids locked, not by a predicate read again later: a test form or folder made
 * after its lock (and whatever is filed in it or submitted to it meanwhile) is not the reset's, and stays.
 */
const testDataTables: Array<{
  counts: 'forms' | 'folders' | 'submissions' | 'integrations' | 'integration_logs' | null;
  sql: string;
  locks?: Locked;
  of?: Locked;
}> = [
  { counts: null, sql: lockTest('forms') },
  // A form filed in a test folder by a create in flight holds that folder (FOR KEY SHARE, its foreign key) and is
  // not among the forms just locked: the folders' lock waits for it, and the forms are locked again, with it.
  { counts: null, sql: lockTest('folders'), locks: 'folders' },
  { counts: null, sql: lockTest('forms'), locks: 'forms' },
  { counts: null, sql: lockTest('integrations') },
  ...submissionTestData,
  ...integrationTestData,
  { counts: null, sql: 'DELETE FROM form_versions WHERE form_id = ANY($1::text[])', of: 'forms' },
  { counts: null, sql: 'DELETE FROM form_logos WHERE form_id = ANY($1::text[])', of: 'forms' },
  { counts: 'forms', sql: 'DELETE FROM forms WHERE id = ANY($1::text[])', of: 'forms' },
  { counts: 'folders', sql: 'DELETE FROM folders WHERE id = ANY($1::text[])', of: 'folders' },
];

function lockTest(table: 'forms' | 'folders' | 'integrations'): string {
  return `SELECT id FROM ${table} WHERE workspace_id = $1 AND environment = 'test' ORDER BY id COLLATE "C" FOR UPDATE`;
}

/**
 * The PostgreSQL store: the same interface, transactions and refusals as the SQLite store, for several
 * processes (or machines) sharing one database. Given a URL it opens its own pool; given a pool, it migrates
 * it and takes it over (closing the store ends the pool).
 */
export async function createPostgresStore(
  source: pg.Pool | string,
  options: { max?: number; processes?: number } = {},
): Promise<Store & { pool: pg.Pool; foldAggregates(): Promise<number> }> {
  let pool: pg.Pool;
  if (typeof source === 'string') {
    pool = await openPostgres(source, options);
  } else {
    pool = source;
    await migrate(pool);
  }
  const caches = await postgresRowCaches(pool);
  return {
    pool,
    workspaces: postgresWorkspaces(pool),
    apiKeys: postgresApiKeys(pool, caches),
    publishableKeys: postgresPublishableKeys(pool),
    forms: postgresForms(pool, caches),
    formLogos: postgresFormLogos(pool),
    folders: postgresFolders(pool),
    auditEvents: postgresAuditEvents(pool),
    idempotency: postgresIdempotency(pool),
    team: postgresTeam(pool),
    submissions: postgresSubmissions(pool, options.processes),
    integrations: postgresIntegrations(pool),
    events: postgresEvents(pool),
    oauth: postgresOAuth(pool),
    rescoreJobs: postgresRescoreJobs(pool),
    usage: postgresUsage(pool),
    spam: postgresSpam(pool),
    publicOrigins: postgresPublicOrigins(pool, caches),
    people: peopleStore(postgresProcedures(pool)),
    transfers: postgresTransfers(pool),
    async resetTestData(workspaceId, audit) {
      return inTransaction(pool, async (client) => {
        const deleted = { forms: 0, folders: 0, submissions: 0, integrations: 0, integration_logs: 0 };
        const locked: Record<Locked, string[]> = { forms: [], folders: [] };
        for (const { counts, sql, locks, of } of testDataTables) {
          const params = [of ? locked[of] : workspaceId];
          if (locks) locked[locks] = (await all<{ id: string }>(client, sql, params)).map((row) => row.id);
          else if (counts) deleted[counts] += await run(client, sql, params);
          else await run(client, sql, params);
        }
        await insertAuditEvent(client, audit);
        return deleted;
      });
    },
    foldAggregates: () => foldAggregateDeltas(pool),
    async close() {
      // Pending deltas are read as exactly as folded ones; folding them here only spares the next process the work,
      // so a fold that fails (the database already gone) does not keep the store from closing.
      await foldAggregateDeltas(pool).catch(() => 0);
      await caches.close();
      await pool.end();
    },
  };
}
