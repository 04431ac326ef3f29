/**
 * Files only the service's own user may read. The SQLite database holds every answer and the secrets of
 * integrations and publishable keys; the data directory holds it with the TLS and challenge keys. Whatever the
 * process's umask, the files are made 0600 and a directory the service creates 0700.
 *
 * A data directory that already exists is the operator's: it may be a mount point or shared with other files, so
 * a looser mode is reported rather than changed (the files in it are 0600 regardless). The database files are the
 * service's own, so a looser mode on them (left by an older version, or a copy) is corrected at every open.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;

/** Something an operator should fix; the service runs on. */
export type Warn = (message: string) => void;

export const warnOnStderr: Warn = (message) => process.emitWarning(message, { code: 'FORM_FUNNEL_FILE_MODE' });

const modeOf = (path: string): number => statSync(path).mode & 0o777;
const octal = (mode: number): string => mode.toString(8).padStart(3, '0');

/** Creates `dir` (and its missing parents) 0700; an existing one that others may enter is reported, not changed. */
export function ensurePrivateDirectory(dir: string, warn: Warn = warnOnStderr): void {
  // The umask may take bits off a directory made here, never add any: only one found here can be looser.
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  const mode = modeOf(dir);
  if ((mode & 0o077) !== 0) {
    warn(`the data directory ${dir} is open to other users (mode ${octal(mode)}): run \`chmod 700 ${dir}\``);
  }
}

/** What SQLite keeps beside a database file: its write-ahead log, its shared memory index, its rollback journal. */
const databaseCompanions = ['-wal', '-shm', '-journal'];

/**
 * Makes a SQLite database file and the files beside it readable by this user only (0600 when created). A missing
 * database file is created empty (SQLite opens an empty file as a new database): SQLite gives the files it creates
 * beside a database the database's own mode, so the log and the shared memory it makes later are 0600 too. Call it
 * before opening the database and again after (the log and shared memory exist from then on).
 */
export function makeDatabaseFilesPrivate(file: string, warn: Warn = warnOnStderr): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const path of [file, ...databaseCompanions.map((suffix) => `${file}${suffix}`)]) makePrivate(path, warn);
}

function makePrivate(path: string, warn: Warn): void {
  let mode: number;
  try {
    mode = modeOf(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  // Already private: left as it is (a read-only mode is the operator's), and no chmod another user's file would refuse.
  if ((mode & 0o077) === 0) return;
  try {
    chmodSync(path, PRIVATE_FILE_MODE);
  } catch (error) {
    // Another user's file that this one may write: the service runs, and the operator learns what to fix.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    warn(`${path} is open to other users (mode ${octal(mode)}) and not this user's to change: run \`chmod 600 ${path}\``);
  }
}
