/**
 * WAL checkpoints in a worker thread (src/store/sqlite/checkpointer.ts): the server's connection never stops to
 * checkpoint inside a commit, the WAL is still copied into the database file, and a checkpointer that cannot
 * run hands checkpoints back to SQLite.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type Database from 'better-sqlite3';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { checkpointInBackground } from '../../src/store/sqlite/checkpointer.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';

const execute = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'form-funnel-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const waitFor = async (condition: () => boolean, what: string) => {
  for (let waited = 0; waited < 5000; waited += 20) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting until ${what}`);
};
const fill = (db: Database.Database, rows: number) => {
  db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO filler (text) VALUES (?)');
  db.transaction(() => {
    for (let index = 0; index < rows; index++) insert.run('x'.repeat(1000));
  })();
};

describe('WAL checkpoints in the background', () => {
  it('when the connection commits, then it never checkpoints itself, and the worker copies the WAL into the file', async () => {
    const file = join(dir, 'copied.db');
    const db = openDatabase(file);
    const checkpointer = checkpointInBackground(db, { intervalMs: 20 });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const before = statSync(file).size;
    fill(db, 2000); // about 500 pages, fewer than SQLite's own threshold: only the worker can copy them
    // Only a checkpoint writes pages into the database file itself.
    await waitFor(() => statSync(file).size > before + 1_000_000, 'the database file holds the rows');
    await checkpointer.close();
    db.close();
  });

  /** Commits `commits` transactions of `rows` rows of 1 kB, with a gap after each as between a server's groups. */
  const stream = async (db: Database.Database, file: string, commits: number, rows = 8) => {
    db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO filler (text) VALUES (?)');
    const commit = db.transaction(() => {
      for (let index = 0; index < rows; index++) insert.run('x'.repeat(1000));
    });
    let largestWal = 0;
    let slowestCommitMs = 0;
    for (let index = 0; index < commits; index++) {
      const started = performance.now();
      commit();
      slowestCommitMs = Math.max(slowestCommitMs, performance.now() - started);
      largestWal = Math.max(largestWal, statSync(`${file}-wal`).size);
      // The RESTART needs the write lock for a moment, which a gap between commits gives it.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return { written: commits * rows * 1000, largestWal, slowestCommitMs };
  };

  it('when commits never stop, then the worker still starts the WAL over, so it stays near its limit', async () => {
    // A passive checkpoint copies what was there when it began; with a commit every few milliseconds the writer
    // never finds the WAL fully copied, so without the worker's RESTART it grows for as long as the stream lasts
    // (docs/internals/wal-checkpointer.md has the sizes measured).
    const file = join(dir, 'stream.db');
    const db = openDatabase(file);
    const checkpointer = checkpointInBackground(db, { intervalMs: 20, restartBytes: 1_000_000 });
    const { written, largestWal } = await stream(db, file, 800, 32);
    // The limit, and what the stream commits while the worker waits for its turn and for the write lock: a quarter of
    // the stream on a quiet machine, more on a busy one, whose worker thread waits longer for a core. Without the
    // RESTART the WAL holds the whole stream, so half of it still tells the two apart.
    expect(largestWal).toBeLessThan(written / 2);
    await checkpointer.close();
    db.close();
  });

  it('when another connection keeps a read open, then the RESTART gives up quickly and commits barely wait', async () => {
    // The RESTART holds the write lock while it waits for readers of the old frames: with the connection's busy
    // timeout (5 s) each commit meeting it waited that long, the event loop with it.
    const file = join(dir, 'reader.db');
    const db = openDatabase(file);
    db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
    db.prepare('INSERT INTO filler (text) VALUES (?)').run('first');
    const checkpointer = checkpointInBackground(db, { intervalMs: 20, restartBytes: 200_000 });
    const reader = openDatabase(file);
    const open = reader.prepare('SELECT text FROM filler').iterate();
    open.next(); // the read transaction stays open until the iterator is closed
    const { slowestCommitMs } = await stream(db, file, 300);
    open.return?.();
    reader.close();
    expect(slowestCommitMs).toBeLessThan(1000);
    await checkpointer.close();
    db.close();
  });

  it('when the worker cannot open its connection, then the connection goes back to automatic checkpoints', async () => {
    const db = openDatabase(join(dir, 'fallback.db'));
    const checkpointer = checkpointInBackground(db, { intervalMs: 20, driver: join(dir, 'no-such-driver.js') });
    await waitFor(() => db.pragma('wal_autocheckpoint', { simple: true }) === 1000, 'automatic checkpoints are back');
    await checkpointer.close();
    db.close();
  });

  it('when a store on a file is closed, then its worker has stopped and the WAL is folded into the file', async () => {
    const file = join(dir, 'store.db');
    const store = createSqliteStore(file);
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    fill(store.db, 500);
    await store.close();
    // The last connection to close checkpoints and removes the WAL: the worker's connection was closed first.
    expect(() => statSync(`${file}-wal`)).toThrow(/ENOENT/);
  });

  it('when a process with nothing else to do closes its store, then it waits for the worker and exits 0', async () => {
    // The admin command's shape: open, write, close at the top level. An unreferenced worker left the close
    // awaiting an exit the loop no longer waited for, and Node ended the process with status 13.
    const index = JSON.stringify(new URL('../../src/store/sqlite/index.ts', import.meta.url).href);
    const source = `const { createSqliteStore } = await import(${index});
       const store = createSqliteStore(${JSON.stringify(join(dir, 'process.db'))});
       store.db.exec('CREATE TABLE t (x)');
       await store.close();
       console.log('closed');`;
    const { stdout } = await execute(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], {
      cwd: join(import.meta.dirname, '../..'),
    });
    expect(stdout.trim()).toBe('closed');
  });

  it('when the checkpointer runs compiled, then its worker starts from the .js file beside it', async () => {
    // The compiled server (a build directory of .js files) has no tsx: the worker must be the compiled sibling.
    const built = mkdtempSync(join(dir, 'built-'));
    for (const name of ['checkpointer', 'checkpoint-worker']) {
      const source = readFileSync(new URL(`../../src/store/sqlite/${name}.ts`, import.meta.url), 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      });
      writeFileSync(join(built, `${name}.js`), outputText);
    }
    writeFileSync(join(built, 'package.json'), '{ "type": "module" }');
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const script = `const { checkpointInBackground } = await import(${JSON.stringify(pathToFileURL(join(built, 'checkpointer.js')).href)});
       const Database = (await import('node:module')).createRequire(import.meta.url)(${JSON.stringify(driver)});
       const db = new Database(${JSON.stringify(join(built, 'compiled.db'))});
       db.pragma('journal_mode = WAL');
       const checkpointer = checkpointInBackground(db, { intervalMs: 20, driver: ${JSON.stringify(driver)} });
       db.exec('CREATE TABLE t (x)');
       await new Promise((resolve) => setTimeout(resolve, 500));
       // A worker that failed to start has handed checkpoints back to SQLite (1000).
       console.log(db.pragma('wal_autocheckpoint', { simple: true }));
       await checkpointer.close();
       db.close();`;
    // Started with -e, as the test before does: the thread must not inherit --input-type.
    const { stdout } = await execute(process.execPath, ['--input-type', 'module', '-e', script], { cwd: built });
    expect(stdout.trim()).toBe('0');
  });

  it('when a store is in memory, then there is nothing to checkpoint and no worker', async () => {
    const store = createSqliteStore(':memory:');
    expect(store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await store.close();
  });
});
