/**
 * One server per SQLite file, asserted when the server opens it. What a server keeps in its own memory assumes
 * no other server writes the same file: the periodic jobs run under a lock that only this process takes
 * (job-lock.ts), rate limits are counted per process, and the row caches catch another process's commits only
 * between event-loop turns (row-cache.ts). A second server on the file, started by mistake from the same
 * `DATA_DIR`, would break these quietly; refused at start, it is one line saying why.
 *
 * The lease is a write lock on a small SQLite file beside the database (`<file>-server`), taken by a transaction
 * that stays open for as long as the server runs. The operating system drops the lock with the process, however
 * it ends, so a lease is never left behind by a crash, and SQLite's own locking refuses a second connection in
 * the same process as it refuses one in another. Short-lived writers (`npm run admin`) take no lease: their
 * commits are the kind the row caches see (`PRAGMA data_version`), and they must work while the server runs.
 */
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDirectory, makeDatabaseFilesPrivate, type Warn, warnOnStderr } from '../../private-files.js';

export interface ServerLease {
  release(): void;
}

/** The lease's file: beside the database, named as SQLite names its own (`-wal`, `-shm`). */
export const leaseFileOf = (file: string): string => `${file}-server`;

export class ServerLeaseHeld extends Error {
  constructor(readonly file: string) {
    super(
      `another server process is serving ${file} (it holds ${leaseFileOf(file)}). ` +
        'A SQLite file is served by one process: stop the other one, or set DATABASE_URL to share PostgreSQL.',
    );
    this.name = 'ServerLeaseHeld';
  }
}

const isBusy = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY');

/** Takes the lease on `file` for this process; throws `ServerLeaseHeld` when another server holds it. */
export function takeServerLease(file: string, warn: Warn = warnOnStderr): ServerLease {
  // A looser directory is reported once, by the database's open that follows.
  ensurePrivateDirectory(dirname(file), () => {});
  makeDatabaseFilesPrivate(leaseFileOf(file), warn);
  const lease = new Database(leaseFileOf(file));
  try {
    // No waiting: a lease that is held stays held for as long as its server runs.
    lease.pragma('busy_timeout = 0');
    // A write lock taken and kept: `BEGIN IMMEDIATE` takes it without writing anything, so there is never a
    // journal to recover after a crash, and the transaction is not ended until the lease is released.
    lease.exec('BEGIN IMMEDIATE');
  } catch (error) {
    lease.close();
    throw isBusy(error) ? new ServerLeaseHeld(file) : error;
  }
  return {
    release() {
      if (lease.open) lease.close();
    },
  };
}
