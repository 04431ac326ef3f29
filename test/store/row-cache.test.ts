/**
 * Cached rows (src/store/sqlite/row-cache.ts): the API key and form every request reads come from memory, and
 * never stale, whoever changed the row.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/domain/keys/secret.js';
import { bootstrapWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { buildApp } from '../../src/http/app.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { type RowsById, rowCaches } from '../../src/store/sqlite/row-cache.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('a row cache', () => {
  let db: Database.Database;
  let loads: number;
  const noteOf = (id: number) => () => {
    loads++;
    return (db.prepare('SELECT note FROM item WHERE id = ?').get(id) as { note: string } | undefined)?.note;
  };
  beforeEach(() => {
    db = new Database(join(mkdtempSync(join(tmpdir(), 'row-cache-')), 'items.db'));
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE item (id INTEGER PRIMARY KEY, note TEXT NOT NULL);
             CREATE TABLE other (id INTEGER PRIMARY KEY);
             INSERT INTO item (id, note) VALUES (1, 'first'), (2, 'second'), (3, 'third')`);
    loads = 0;
  });

  it('when a row is read again, then it comes from memory', async () => {
    const notes = rowCaches(db).create<string>(['item'], { rows: 10 });
    expect(notes.get('1', noteOf(1))).toBe('first');
    await nextTurn();
    expect(notes.get('1', noteOf(1))).toBe('first');
    expect(loads).toBe(1);
  });

  it('when this connection inserts, updates or deletes in a watched table, then the next read loads again, in the same turn', () => {
    const notes = rowCaches(db).create<string>(['item'], { rows: 10 });
    for (const [change, expected] of [
      ["UPDATE item SET note = 'changed' WHERE id = 1", 'changed'],
      ["INSERT OR REPLACE INTO item (id, note) VALUES (1, 'replaced')", 'replaced'],
      ['DELETE FROM item WHERE id = 1', undefined],
    ] as const) {
      notes.get('1', noteOf(1));
      db.exec(change);
      expect(notes.get('1', noteOf(1)), change).toBe(expected);
    }
  });

  it('when a table it does not watch changes, then its rows stay in memory', () => {
    const notes = rowCaches(db).create<string>(['item'], { rows: 10 });
    notes.get('1', noteOf(1));
    db.exec('INSERT INTO other (id) VALUES (1)');
    notes.get('1', noteOf(1));
    expect(loads).toBe(1);
  });

  it('when another connection commits, then the next turn reads the row again', async () => {
    const notes = rowCaches(db).create<string>(['item'], { rows: 10 });
    notes.get('1', noteOf(1));
    await nextTurn();
    new Database(db.name).prepare("UPDATE item SET note = 'elsewhere' WHERE id = 1").run();
    await nextTurn();
    expect(notes.get('1', noteOf(1))).toBe('elsewhere');
  });

  it("when a callback's promise continuations read again, then one data_version read serves them all, and the next turn reads it again", async () => {
    const prepare = db.prepare.bind(db);
    let versionReads = 0;
    db.prepare = ((sql: string) => {
      const prepared = prepare(sql);
      if (sql === 'PRAGMA data_version') {
        const get = prepared.get.bind(prepared);
        prepared.get = (...params: unknown[]) => {
          versionReads++;
          return get(...params);
        };
      }
      return prepared;
    }) as typeof db.prepare;
    const notes = rowCaches(db).create<string>(['item'], { rows: 10 });
    versionReads = 0;
    // As a request does: its key is read in the callback that received it, its form in a continuation of that.
    const request = () =>
      new Promise<void>((resolve) =>
        setImmediate(async () => {
          notes.get('1', noteOf(1));
          await Promise.resolve();
          notes.get('2', noteOf(2));
          resolve();
        }),
      );
    await request();
    expect(versionReads).toBe(1);
    await request();
    expect(versionReads).toBe(2);
  });

  it('when a row is absent, then nothing is remembered and a row added later is found', () => {
    const notes = rowCaches(db).create<string>(['other'], { rows: 10 });
    expect(notes.get('9', noteOf(9))).toBeUndefined();
    new Database(db.name).prepare("INSERT INTO item (id, note) VALUES (9, 'late')").run();
    expect(notes.get('9', noteOf(9))).toBe('late');
  });

  it('when a transaction of this connection is open, then reads pass the cache by and nothing it wrote is remembered', () => {
    const notes = rowCaches(db).create<string>(['item'], { rows: 10 });
    notes.get('1', noteOf(1));
    expect(() =>
      db.transaction(() => {
        db.exec("UPDATE item SET note = 'uncommitted' WHERE id = 1");
        expect(notes.get('1', noteOf(1))).toBe('uncommitted');
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(notes.get('1', noteOf(1))).toBe('first');
  });

  it('when it is full, then the oldest row is forgotten first', () => {
    const notes = rowCaches(db).create<string>(['item'], { rows: 2 });
    for (const id of [1, 2, 3]) notes.get(String(id), noteOf(id));
    loads = 0;
    notes.get('3', noteOf(3));
    notes.get('2', noteOf(2));
    expect(loads).toBe(0);
    notes.get('1', noteOf(1));
    expect(loads).toBe(1);
  });

  it('when rows are weighed, then together they stay within the budget, oldest forgotten first, and one heavier than it is not kept', () => {
    db.exec("INSERT INTO item (id, note) VALUES (4, 'a note far longer than the whole budget')");
    const notes = rowCaches(db).create<string>(['item'], { rows: 10, weigh: (note) => note.length, weight: 12 });
    for (const id of [1, 2]) notes.get(String(id), noteOf(id)); // 5 + 6 characters
    loads = 0;
    notes.get('3', noteOf(3)); // 5 more: 'first' goes
    notes.get('2', noteOf(2));
    expect(loads).toBe(1);
    notes.get('1', noteOf(1));
    expect(loads).toBe(2);
    notes.get('4', noteOf(4));
    notes.get('4', noteOf(4));
    expect(loads).toBe(4);
  });

  it('when the cache is emptied while a read is loading (its load writes the table), then the row it loaded is not kept', () => {
    const notes = rowCaches(db).create<string>(['item'], { rows: 10 });
    const loadThenWrite = () => {
      const note = noteOf(1)();
      db.exec("UPDATE item SET note = 'written while loading' WHERE id = 1");
      return note;
    };
    expect(notes.get('1', loadThenWrite)).toBe('first');
    expect(notes.get('1', noteOf(1))).toBe('written while loading');
    expect(loads).toBe(2);
    // A read left alone is kept.
    expect(notes.get('1', noteOf(1))).toBe('written while loading');
    expect(loads).toBe(2);
  });

  it('when a row weighs exactly the whole budget, then it is kept', () => {
    const notes = rowCaches(db).create<string>(['item'], { rows: 10, weigh: (note) => note.length, weight: 5 });
    notes.get('1', noteOf(1)); // 'first': 5 characters
    notes.get('1', noteOf(1));
    expect(loads).toBe(1);
  });

  it('when two caches of one connection watch a table, then a change empties both', () => {
    const first = rowCaches(db).create<string>(['item'], { rows: 10 });
    const second = rowCaches(db).create<string>(['item', 'other'], { rows: 10 });
    first.get('1', noteOf(1));
    second.get('1', noteOf(1));
    db.exec("UPDATE item SET note = 'both' WHERE id = 1");
    expect([first.get('1', noteOf(1)), second.get('1', noteOf(1))]).toEqual(['both', 'both']);
  });
});

describe('a cache of rows by id', () => {
  let db: Database.Database;
  let loaded: string[][];
  const notesOf = (missing: string[]) => {
    loaded.push(missing);
    const rows = db
      .prepare('SELECT id, note FROM item WHERE id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(missing.map(Number))) as Array<{
      id: number;
      note: string;
    }>;
    return new Map(rows.map((row) => [String(row.id), row.note]));
  };
  /** A page's rows, read as a list reads them. */
  const getMany = (cache: RowsById<string>, ids: string[]) => cache.read((rows) => rows(ids, notesOf));
  beforeEach(() => {
    db = new Database(join(mkdtempSync(join(tmpdir(), 'row-cache-by-id-')), 'items.db'));
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE item (id INTEGER PRIMARY KEY, note TEXT NOT NULL);
             INSERT INTO item (id, note) VALUES (1, 'first'), (2, 'second'), (3, 'third')`);
    loaded = [];
  });

  it('when rows are read again, then they come from memory, in the order asked, and only the missing ones are loaded', async () => {
    const notes = rowCaches(db).createById<string>('item', { rows: 10 });
    expect(getMany(notes, ['2', '1'])).toEqual(['second', 'first']);
    await nextTurn();
    expect(getMany(notes, ['1', '3', '2'])).toEqual(['first', 'third', 'second']);
    expect(loaded).toEqual([['2', '1'], ['3']]);
  });

  it('when one row is inserted, updated, replaced or deleted, then that row is loaded again and the others stay in memory', () => {
    const notes = rowCaches(db).createById<string>('item', { rows: 10 });
    for (const [change, expected] of [
      ["UPDATE item SET note = 'changed' WHERE id = 1", ['changed', 'second']],
      ["INSERT OR REPLACE INTO item (id, note) VALUES (1, 'replaced')", ['replaced', 'second']],
      ['DELETE FROM item WHERE id = 1', ['second']],
      ["INSERT INTO item (id, note) VALUES (1, 'again')", ['again', 'second']],
    ] as const) {
      getMany(notes, ['1', '2']);
      loaded = [];
      db.exec(change);
      expect(getMany(notes, ['1', '2']), change).toEqual(expected);
      expect(loaded, change).toEqual([['1']]);
    }
  });

  it('when another connection commits, then the next turn loads every row again', async () => {
    const notes = rowCaches(db).createById<string>('item', { rows: 10 });
    getMany(notes, ['1', '2']);
    await nextTurn();
    new Database(db.name).prepare("UPDATE item SET note = 'elsewhere' WHERE id = 2").run();
    await nextTurn();
    expect(getMany(notes, ['1', '2'])).toEqual(['first', 'elsewhere']);
    expect(loaded).toEqual([
      ['1', '2'],
      ['1', '2'],
    ]);
  });

  it("when another connection commits within the turn, then a page's rows are of the state its own query read, not of the turn's earlier check", () => {
    const notes = rowCaches(db).createById<string>('item', { rows: 10 });
    expect(getMany(notes, ['1'])).toEqual(['first']);
    // The same turn: the check made above would serve a plain read, but not a page whose query sees the commit.
    new Database(db.name).prepare("UPDATE item SET note = 'elsewhere' WHERE id = 1").run();
    const page = notes.read((rows) => {
      const ids = (db.prepare("SELECT id FROM item WHERE note = 'elsewhere'").all() as Array<{ id: number }>).map((row) => String(row.id));
      return rows(ids, notesOf);
    });
    expect(page).toEqual(['elsewhere']);
  });

  it('when a transaction of this connection is open, then reads pass the cache by and nothing it wrote is remembered', () => {
    const notes = rowCaches(db).createById<string>('item', { rows: 10 });
    getMany(notes, ['1']);
    expect(() =>
      db.transaction(() => {
        db.exec("UPDATE item SET note = 'uncommitted' WHERE id = 1");
        expect(getMany(notes, ['1', '2'])).toEqual(['uncommitted', 'second']);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    loaded = [];
    expect(getMany(notes, ['1', '2'])).toEqual(['first', 'second']);
    expect(loaded).toEqual([['1', '2']]);
  });

  it('when a row is changed while a page is loading (its load writes the table), then the rows it loaded are not kept', () => {
    const notes = rowCaches(db).createById<string>('item', { rows: 10 });
    const loadThenWrite = (missing: string[]) => {
      const found = notesOf(missing);
      db.exec("UPDATE item SET note = 'written while loading' WHERE id = 2");
      return found;
    };
    expect(notes.read((rows) => rows(['1', '2'], loadThenWrite))).toEqual(['first', 'second']);
    loaded = [];
    expect(getMany(notes, ['1', '2'])).toEqual(['first', 'written while loading']);
    expect(loaded).toEqual([['1', '2']]);
  });

  it('when two caches by id of one connection watch a table, then a changed row is loaded again by both', () => {
    const first = rowCaches(db).createById<string>('item', { rows: 10 });
    const second = rowCaches(db).createById<string>('item', { rows: 10 });
    getMany(first, ['1']);
    getMany(second, ['1']);
    db.exec("UPDATE item SET note = 'both' WHERE id = 1");
    expect([getMany(first, ['1']), getMany(second, ['1'])]).toEqual([['both'], ['both']]);
  });

  it('when a page holds more rows than the cache, then every row known before the page is read is still in it', () => {
    const notes = rowCaches(db).createById<string>('item', { rows: 2 });
    getMany(notes, ['1', '2']);
    // Adding 3 forgets 1, which this very page also asks for.
    expect(getMany(notes, ['1', '2', '3'])).toEqual(['first', 'second', 'third']);
  });

  it('when an id is not stored, then it is left out and nothing is remembered for it', () => {
    const notes = rowCaches(db).createById<string>('item', { rows: 10 });
    expect(getMany(notes, ['1', '9'])).toEqual(['first']);
    db.exec("INSERT INTO item (id, note) VALUES (9, 'late')");
    expect(getMany(notes, ['9'])).toEqual(['late']);
  });

  it('when a row changes, then its weight leaves the budget with it', () => {
    const notes = rowCaches(db).createById<string>('item', { rows: 10, weigh: (note) => note.length, weight: 11 });
    getMany(notes, ['1']); // 5 characters
    for (let round = 0; round < 3; round++) {
      db.exec("UPDATE item SET note = 'first' WHERE id = 1");
      getMany(notes, ['1']);
    }
    loaded = [];
    getMany(notes, ['2', '1']); // 6 more: both fit when 'first' is counted once
    getMany(notes, ['1', '2']);
    expect(loaded).toEqual([['2']]);
  });
});

describe('the SQLite store, reading keys and forms from memory', () => {
  const require = createRequire(import.meta.url);

  async function storeWithKey() {
    const file = join(mkdtempSync(join(tmpdir(), 'row-cache-store-')), 'store.db');
    const store = createSqliteStore(file, { backgroundCheckpoints: false });
    const { services } = buildApp({ store });
    const workspace = await bootstrapWorkspace(services, { name: 'Cache', plan: 'business' });
    return { file, store, hash: hashSecret(workspace.live_admin_key) };
  }

  it('when a key is revoked by another process, then the next request after it finds the key revoked', async () => {
    const { file, store, hash } = await storeWithKey();
    expect((await store.apiKeys.findBySecretHash(hash))?.key.status).toBe('active');
    // As the admin command would: its own process, its own connection, committed before it exits.
    await promisify(execFile)(process.execPath, [
      '-e',
      `new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(${JSON.stringify(file)})
         .prepare("UPDATE api_keys SET status = 'revoked', revocation_cause = 'revoked', revoked_at = '2026-01-01T00:00:00.000Z'").run()`,
    ]);
    expect((await store.apiKeys.findBySecretHash(hash))?.key.status).toBe('revoked');
    await store.close();
  });

  it("when a key's workspace changes through this store, then the key's next lookup carries the change", async () => {
    const { store, hash } = await storeWithKey();
    const before = (await store.apiKeys.findBySecretHash(hash))!;
    expect(before.workspace.rateLimits).toBeNull();
    store.db.prepare('UPDATE workspaces SET rate_limit_per_key_per_second = 7, rate_limit_per_workspace_per_minute = 70').run();
    expect((await store.apiKeys.findBySecretHash(hash))!.workspace.rateLimits).toEqual({ perKeyPerSecond: 7, perWorkspacePerMinute: 70 });
    await store.close();
  });

  it('when a cached record is handed out, then no caller can change the copy the next caller gets', async () => {
    const { store, hash } = await storeWithKey();
    const credential = (await store.apiKeys.findBySecretHash(hash))!;
    expect(() => {
      (credential.key as { scope: string }).scope = 'read';
    }).toThrow(TypeError);
    expect((await store.apiKeys.findBySecretHash(hash))!.key.scope).toBe(credential.key.scope);
    await store.close();
  });
});
