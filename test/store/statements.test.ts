/**
 * `allRows` reads rows as arrays and assembles the objects itself (cheaper than better-sqlite3's own row objects);
 * it must give exactly what `all` gives, and leave the shared prepared statement as it found it. `transaction`
 * reuses one better-sqlite3 transaction function per connection; it must keep that function's semantics.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { allRows, statement, transaction } from '../../src/store/sqlite/statements.js';

let db: Database.Database;
beforeEach(() => {
  db = new Database(':memory:');
  db.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, x REAL, body TEXT, blob BLOB, missing TEXT);
    INSERT INTO t VALUES ('a', 1, 1.5, '{"k":"é"}', x'0102', NULL), ('b', 9007199254740991, -0.25, '', x'', NULL);`);
});
afterEach(() => db.close());

describe('allRows', () => {
  it.each([
    ['every column', 'SELECT * FROM t ORDER BY id'],
    ['aliases and expressions', 'SELECT id AS key, n + 1 AS next, upper(body) AS loud FROM t ORDER BY id DESC'],
    ['a repeated name (the later column wins, as with all)', 'SELECT id, n AS id FROM t ORDER BY n'],
    ['no rows', "SELECT * FROM t WHERE id = 'none'"],
  ])('when the query has %s, then the rows equal what all returns, in order', (_label, sql) => {
    const expected = db.prepare(sql).all();
    const rows = allRows<Record<string, unknown>>(statement(db, sql));
    expect(rows).toEqual(expected);
    // Same keys in the same order, so a serialised row reads the same.
    expect(rows.map((row) => JSON.stringify(Object.keys(row)))).toEqual(expected.map((row) => JSON.stringify(Object.keys(row as object))));
  });

  it('when parameters are given, then they are bound as all binds them', () => {
    const sql = 'SELECT id FROM t WHERE n >= ? AND id <> ? ORDER BY id';
    expect(allRows(statement(db, sql), 1, 'b')).toEqual([{ id: 'a' }]);
  });

  it('when the shared statement is used again afterwards, then it still returns objects', () => {
    const sql = 'SELECT id, n FROM t ORDER BY id';
    allRows(statement(db, sql));
    expect(statement(db, sql).get()).toEqual({ id: 'a', n: 1 });
    expect(statement(db, sql).all()).toEqual([
      { id: 'a', n: 1 },
      { id: 'b', n: 9007199254740991 },
    ]);
  });

  it('when the query fails, then the error is thrown and the statement is left in object mode', () => {
    db.function('fails', () => {
      throw new Error('refused');
    });
    const sql = 'SELECT id, fails() AS f FROM t';
    expect(() => allRows(statement(db, sql))).toThrow('refused');
    expect(() => statement(db, sql).get()).toThrow('refused');
    const plain = statement(db, 'SELECT id FROM t ORDER BY id');
    expect(() => allRows(plain, 'unexpected')).toThrow();
    expect(plain.get()).toEqual({ id: 'a' });
  });
});

describe('transaction', () => {
  const ids = () => (db.prepare('SELECT id FROM t ORDER BY id').pluck().all() as string[]).join(',');
  const insert = (id: string) => statement(db, 'INSERT INTO t (id) VALUES (?)').run(id);

  it('when the change returns, then its writes are committed and its value returned', () => {
    const value = transaction(db, 'deferred', () => {
      insert('c');
      return 'done';
    });
    expect(value).toBe('done');
    expect(db.inTransaction).toBe(false);
    expect(ids()).toBe('a,b,c');
  });

  it('when the change throws, then its writes are rolled back and the error is thrown', () => {
    const failure = new Error('no');
    expect(() =>
      transaction(db, 'immediate', () => {
        insert('c');
        throw failure;
      }),
    ).toThrow(failure);
    expect(db.inTransaction).toBe(false);
    expect(ids()).toBe('a,b');
  });

  it('when it is nested, then the inner change is a savepoint: its failure undoes only its own writes', () => {
    transaction(db, 'immediate', () => {
      insert('c');
      expect(() =>
        transaction(db, 'deferred', () => {
          insert('d');
          throw new Error('inner');
        }),
      ).toThrow('inner');
      expect(db.inTransaction).toBe(true);
      transaction(db, 'immediate', () => insert('e'));
    });
    expect(ids()).toBe('a,b,c,e');
  });

  it('when the mode is immediate, then the write lock is taken at the start; deferred takes none for reads', () => {
    const dir = mkdtempSync(join(tmpdir(), 'form-funnel-transaction-'));
    const file = new Database(join(dir, 'lock.db'));
    const other = new Database(join(dir, 'lock.db'));
    try {
      file.pragma('journal_mode = WAL');
      other.pragma('busy_timeout = 0');
      file.exec('CREATE TABLE t (id TEXT)');
      const otherWrites = () => other.prepare('INSERT INTO t VALUES (?)').run('x');
      transaction(file, 'deferred', () => {
        file.prepare('SELECT count(*) FROM t').get();
        expect(otherWrites).not.toThrow();
      });
      transaction(file, 'immediate', () => {
        expect(otherWrites).toThrow(/database is locked/);
      });
    } finally {
      other.close();
      file.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when it runs many times, then better-sqlite3 builds its transaction function once for the connection', () => {
    const built = vi.spyOn(db, 'transaction');
    for (const id of ['c', 'd', 'e']) transaction(db, 'deferred', () => insert(id));
    transaction(db, 'immediate', () => insert('f'));
    expect(built).toHaveBeenCalledTimes(1);
    expect(ids()).toBe('a,b,c,d,e,f');
  });
});

describe('openDatabase', () => {
  it('keeps temporary storage in memory, so the write path savepoints never spill page copies to a file', () => {
    // On the default setting SQLite moves a savepoint's page copies to a temporary file past 64 KiB, which one
    // submission's rows and index entries exceed (every create wrote and read a file); see database.ts.
    const dir = mkdtempSync(join(tmpdir(), 'form-funnel-open-'));
    const opened = openDatabase(join(dir, 'open.db'));
    try {
      expect(opened.pragma('temp_store', { simple: true })).toBe(2);
    } finally {
      opened.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
