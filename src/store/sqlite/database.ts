import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

/**
 * Opens the SQLite database with the settings the service relies on: WAL so readers never wait for the
 * writer, foreign keys for cascades, a busy timeout so a second process (the admin command) can write
 * while the server runs. `:memory:` gives a private database for tests.
 */
export function openDatabase(file: string): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  // First, so that switching a fresh file to WAL and migrating it wait for another process doing the same.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}
