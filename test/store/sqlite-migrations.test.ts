/**
 * Several processes opening one fresh SQLite file at once (the server and the admin command on a new DATA_DIR)
 * each find the schema complete, and every migration is applied once.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/sqlite/database.js';

const execute = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'form-funnel-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each child opens (and so migrates) the file, then prints the schema version it sees.
const child = (file: string) =>
  execute(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { openDatabase } = await import(${JSON.stringify(new URL('../../src/store/sqlite/database.ts', import.meta.url).href)});
       const db = openDatabase(${JSON.stringify(file)});
       console.log(db.pragma('user_version', { simple: true }));
       db.close();`,
    ],
    { cwd: join(import.meta.dirname, '../..') },
  );

describe('SQLite migrations', () => {
  it('when four processes open one fresh file at once, then each succeeds and sees every migration applied once', async () => {
    const file = join(dir, 'race', 'form-funnel.db');
    const expected = (() => {
      const db = openDatabase(join(dir, 'alone', 'form-funnel.db'));
      const version = db.pragma('user_version', { simple: true });
      db.close();
      return version;
    })();
    const outcomes = await Promise.all(Array.from({ length: 4 }, () => child(file)));
    expect(outcomes.map(({ stdout }) => Number(stdout.trim()))).toEqual([expected, expected, expected, expected]);
    const db = new Database(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(expected);
    db.close();
  });
});
