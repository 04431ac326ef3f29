import type Database from 'better-sqlite3';
import { type Warn, warnOnStderr } from '../../private-files.js';
import { peopleStore } from '../people/index.js';
import type { Store } from '../types.js';
import { sqliteApiKeys } from './api-keys.js';
import { insertAuditEvent, sqliteAuditEvents } from './audit-events.js';
import { checkpointInBackground } from './checkpointer.js';
import { openDatabase } from './database.js';
import { sqliteEvents } from './events.js';
import { sqliteFolders } from './folders.js';
import { sqliteFormLogos } from './form-logos.js';
import { sqliteForms } from './forms.js';
import { groupCommit } from './group-commit.js';
import { sqliteIdempotency } from './idempotency.js';
import { integrationTestData, sqliteIntegrations } from './integrations.js';
import { sqliteOAuth } from './oauth.js';
import { sqliteProcedures } from './procedures.js';
import { sqlitePublicOrigins } from './public-origins.js';
import { sqlitePublishableKeys } from './publishable-keys.js';
import { sqliteRescoreJobs } from './rescore-jobs.js';
import { takeServerLease } from './server-lease.js';
import { sqliteSpam } from './spam.js';
import { statement, transaction } from './statements.js';
import { sqliteSubmissions, submissionTestData } from './submissions.js';
import { sqliteTeam } from './team.js';
import { sqliteTransfers } from './transfers.js';
import { sqliteUsage } from './usage.js';
import { sqliteWorkspaces } from './workspaces.js';

/**
 * Test-mode rows of a workspace, deleted by "Reset test data", children before parents. Later migrations
 * modules contribute their own statements (submissions, integrations). Each entry: the count it reports and its DELETE.
 */
export const testDataTables: Array<{
  counts: 'forms' | 'folders' | 'submissions' | 'integrations' | 'integration_logs' | null;
  sql: string;
}> = [
  ...submissionTestData,
  ...integrationTestData,
  {
    counts: null,
    sql: `DELETE FROM form_versions WHERE form_id IN (SELECT id FROM forms WHERE workspace_id = ? AND environment = 'test')`,
  },
  { counts: null, sql: `DELETE FROM form_logos WHERE form_id IN (SELECT id FROM forms WHERE workspace_id = ? AND environment = 'test')` },
  { counts: 'forms', sql: `DELETE FROM forms WHERE workspace_id = ? AND environment = 'test'` },
  { counts: 'folders', sql: `DELETE FROM folders WHERE workspace_id = ? AND environment = 'test'` },
];

export interface SqliteStoreOptions {
  /**
   * Checkpoint the WAL in a worker thread (checkpointer.ts) rather than in commits; default true for a file this
   * store opens. A short-lived process (the admin command) leaves it to SQLite.
   */
  backgroundCheckpoints?: boolean;
  /**
   * Take the file's server lease (server-lease.ts): refuse to open a file another server serves. Off by default,
   * so a test may open a file twice as two servers would; the server asks for it (open.ts).
   */
  serverLease?: boolean;
  /** Hears what an operator should fix in the data directory (a mode open to other users); default: stderr. */
  warn?: Warn;
}

export function createSqliteStore(
  fileOrDb: string | Database.Database,
  { backgroundCheckpoints = true, serverLease = false, warn = warnOnStderr }: SqliteStoreOptions = {},
): Store & { db: Database.Database } {
  const file = typeof fileOrDb === 'string' && fileOrDb !== ':memory:' ? fileOrDb : undefined;
  const lease = serverLease && file !== undefined ? takeServerLease(file, warn) : undefined;
  let db: Database.Database;
  try {
    db = typeof fileOrDb === 'string' ? openDatabase(fileOrDb, warn) : fileOrDb;
  } catch (error) {
    lease?.release();
    throw error;
  }
  // A database this store opened on a file is checkpointed in the background; one handed in is the caller's.
  const checkpointer = backgroundCheckpoints && file !== undefined ? checkpointInBackground(db) : undefined;
  const grouped = groupCommit(db);
  return {
    db,
    workspaces: sqliteWorkspaces(db),
    apiKeys: sqliteApiKeys(db),
    publishableKeys: sqlitePublishableKeys(db),
    forms: sqliteForms(db),
    formLogos: sqliteFormLogos(db),
    transfers: sqliteTransfers(db),
    folders: sqliteFolders(db),
    auditEvents: sqliteAuditEvents(db),
    idempotency: sqliteIdempotency(db),
    team: sqliteTeam(db),
    submissions: sqliteSubmissions(db, grouped),
    integrations: sqliteIntegrations(db),
    events: sqliteEvents(db),
    oauth: sqliteOAuth(db),
    rescoreJobs: sqliteRescoreJobs(db),
    usage: sqliteUsage(db),
    spam: sqliteSpam(db),
    publicOrigins: sqlitePublicOrigins(db),
    people: peopleStore(sqliteProcedures(db)),
    async resetTestData(workspaceId, audit) {
      return transaction(db, 'immediate', () => {
        const deleted = { forms: 0, folders: 0, submissions: 0, integrations: 0, integration_logs: 0 };
        for (const { counts, sql } of testDataTables) {
          const changes = statement(db, sql).run(workspaceId).changes;
          if (counts) deleted[counts] += changes;
        }
        insertAuditEvent(db, audit);
        return deleted;
      });
    },
    async close() {
      // Creates still queued commit first: their requests are waiting for the answer.
      grouped.flush();
      await checkpointer?.close();
      db.close();
      lease?.release();
    },
  };
}
