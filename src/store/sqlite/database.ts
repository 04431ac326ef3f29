import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDirectory, makeDatabaseFilesPrivate, type Warn, warnOnStderr } from '../../private-files.js';
import { migrate } from './migrations.js';

/**
 * Opens the SQLite database with the settings the service relies on: WAL so readers never wait for the
 * writer, foreign keys for cascades, a busy timeout so a second process (the admin command) can write
 * while the server runs, temporary storage in memory for the savepoints of the write path. `:memory:` gives a private database for tests.
 * The file, its log and its shared memory are readable by this user only, in a directory made 0700
 * (../../private-files.ts); `warn` hears of a data directory that others may enter.
 */
export function openDatabase(file: string, warn: Warn = warnOnStderr): Database.Database {
  if (file === ':memory:') return openInMemory();
  ensurePrivateDirectory(dirname(file), warn);
  makeDatabaseFilesPrivate(file, warn);
  const db = configured(new Database(file));
  // Switching to WAL made the log and the shared memory: SQLite gave them the file's mode; checked all the same.
  makeDatabaseFilesPrivate(file, warn);
  migrate(db);
  return db;
}

/**
 * The migrated schema of the first database this process made in memory, as `serialize()` gives it. Every later one
 * opens a copy of it: applying the migrations took 60 to 80 ms a database, and the tests make thousands.
 */
let memoryImage: Buffer | undefined;

function openInMemory(): Database.Database {
  if (memoryImage) return configured(new Database(memoryImage));
  const db = configured(new Database(':memory:'));
  migrate(db);
  memoryImage = db.serialize();
  return db;
}

function configured(db: Database.Database): Database.Database {
  // First, so that switching a fresh file to WAL and migrating it wait for another process doing the same.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // Temporary storage in memory. The write path runs creates in savepoints (group-commit.ts), and SQLite keeps the
  // original of every page a savepoint changes until it is released; on the default setting those copies spill to
  // a temporary file past 64 KiB, sixteen pages, which a group's rows and index entries exceed: each group then
  // wrote and read a file. The cost: a sort too big for the page cache (an index build
  // in a migration) is held in memory rather than spilled. Set before anything creates a TEMP object, since
  // changing it later drops them (the row caches' triggers).
  db.pragma('temp_store = MEMORY');
  return db;
}
