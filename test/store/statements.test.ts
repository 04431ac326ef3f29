/**
 * `allRows` reads rows as arrays and assembles the objects itself (cheaper than better-sqlite3's own row objects);
 * it must give exactly what `all` gives, and leave the shared prepared statement as it found it.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { allRows, statement } from '../../src/store/sqlite/statements.js';

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
