/**
 * The SQLite database holds every answer and the integrations' and publishable keys' secrets: its file, write-ahead
 * log and shared memory are readable by the service's user only (0600), whatever the umask, in a data directory
 * the service makes 0700. An existing data directory open to others is reported, not changed
 * (src/private-files.ts).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { ensurePrivateDirectory } from '../../src/private-files.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { leaseFileOf } from '../../src/store/sqlite/server-lease.js';
import type { Store } from '../../src/store/types.js';

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);
const databaseFiles = (file: string) => [file, `${file}-wal`, `${file}-shm`];

let parent: string;
const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  rmSync(parent, { recursive: true, force: true });
});

/**
 * Opens a store on `file` as the server does, with the umask of a typical shell (022) while it opens. A worker
 * thread cannot set the umask (a mutation run's test runner uses them): the process's own then applies.
 */
function openAsServer(file: string, warnings: string[] = []): Store {
  let umask: number | undefined;
  try {
    umask = process.umask(0o022);
  } catch {}
  try {
    const store = createSqliteStore(file, { serverLease: true, warn: (message) => warnings.push(message) });
    opened.push(store);
    return store;
  } finally {
    if (umask !== undefined) process.umask(umask);
  }
}

/** A write, so that the log holds something and every file SQLite keeps beside the database exists. */
const write = (store: Store) =>
  store.workspaces.create({ id: newId('ws'), name: 'Acme', plan: 'free', createdAt: new Date().toISOString() });

describe('the SQLite database files', () => {
  it('when a store opens a database in a data directory that does not exist yet, then the directory is 0700 and the database, its log and its shared memory 0600', async () => {
    parent = mkdtempSync(join(tmpdir(), 'form-funnel-modes-'));
    const dataDir = join(parent, 'data');
    const file = join(dataDir, 'form-funnel.db');
    const warnings: string[] = [];

    await write(openAsServer(file, warnings));

    expect(modeOf(dataDir)).toBe('700');
    expect(databaseFiles(file).map(modeOf)).toEqual(['600', '600', '600']);
    expect(modeOf(leaseFileOf(file))).toBe('600');
    expect(warnings).toEqual([]);
  });

  it('when the database, its log and its shared memory are readable by others, then the next open makes them 0600 again', async () => {
    parent = mkdtempSync(join(tmpdir(), 'form-funnel-modes-'));
    const file = join(parent, 'form-funnel.db');
    // The server holds the database open, so its log and shared memory exist and are not empty.
    await write(openAsServer(file));
    // As an older version, a copy or a restore may leave them.
    for (const path of databaseFiles(file)) chmodSync(path, 0o644);
    expect(databaseFiles(file).map(modeOf)).toEqual(['644', '644', '644']);

    // A second open, as `npm run admin` makes beside the server.
    opened.push(createSqliteStore(file, { backgroundCheckpoints: false }));

    expect(databaseFiles(file).map(modeOf)).toEqual(['600', '600', '600']);
  });

  it('when the data directory exists and others may enter it, then it is left as it is and the warning names it and the command that fixes it', async () => {
    parent = mkdtempSync(join(tmpdir(), 'form-funnel-modes-'));
    const dataDir = join(parent, 'shared');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const file = join(dataDir, 'form-funnel.db');
    const warnings: string[] = [];

    await write(openAsServer(file, warnings));

    expect(modeOf(dataDir)).toBe('755');
    expect(warnings).toEqual([`the data directory ${dataDir} is open to other users (mode 755): run \`chmod 700 ${dataDir}\``]);
    expect(databaseFiles(file).map(modeOf)).toEqual(['600', '600', '600']);
  });

  it('when the data directory exists with mode 0700, then nothing is reported', async () => {
    parent = mkdtempSync(join(tmpdir(), 'form-funnel-modes-'));
    const warnings: string[] = [];
    await write(openAsServer(join(parent, 'form-funnel.db'), warnings));
    expect(modeOf(parent)).toBe('700');
    expect(warnings).toEqual([]);
  });

  it('when no one listens for the warning, then it is a process warning an operator sees on stderr', async () => {
    parent = mkdtempSync(join(tmpdir(), 'form-funnel-modes-'));
    chmodSync(parent, 0o755);
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));

    ensurePrivateDirectory(parent);

    const warning = await warned;
    expect(warning.message).toBe(`the data directory ${parent} is open to other users (mode 755): run \`chmod 700 ${parent}\``);
    expect((warning as NodeJS.ErrnoException).code).toBe('FORM_FUNNEL_FILE_MODE');
  });
});
