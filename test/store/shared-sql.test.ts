/**
 * Statements shared by the two stores (src/store/sql/) are written once with `:name` parameters: better-sqlite3 binds
 * the text as written from an object, node-postgres gets `$n` placeholders compiled from it. Here: what the compiler
 * makes of a text, what it refuses, the parameter types the checker derives, and every shared statement checked
 * against both migrated schemas, each database counting the statement's parameters itself.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { type ParameterNames, type SharedStatement, shared } from '../../src/store/sql/statement.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createTestDatabase } from '../support/postgres.js';

describe('compiling a shared statement', () => {
  it('when a name repeats, then PostgreSQL numbers the names in order of first use and binds each value once', () => {
    const statement = shared('SELECT * FROM t WHERE b = :b AND (a = :a OR c = :a) AND d <= :due');
    expect(statement.sqlite).toBe('SELECT * FROM t WHERE b = :b AND (a = :a OR c = :a) AND d <= :due');
    expect(statement.postgres).toBe('SELECT * FROM t WHERE b = $1 AND (a = $2 OR c = $2) AND d <= $3');
    expect(statement.postgresNames).toEqual(['b', 'a', 'due']);
    expect(statement.bindPostgres({ a: 'first', b: 2, due: null })).toEqual([statement.postgres, [2, 'first', null]]);
  });

  it('when the text casts a value (::type), then the cast stays and its type is not read as a parameter', () => {
    const statement = shared('SELECT :key::timestamptz AS key, id::text FROM t WHERE id = :id');
    expect(statement.postgres).toBe('SELECT $1::timestamptz AS key, id::text FROM t WHERE id = $2');
    expect(statement.postgresNames).toEqual(['key', 'id']);
  });

  it('when a name runs into punctuation, then it ends there (letters, digits and _ only)', () => {
    const statement = shared('INSERT INTO t (a, b) VALUES (:first_1,:second)');
    expect(statement.postgres).toBe('INSERT INTO t (a, b) VALUES ($1,$2)');
    expect(statement.postgresNames).toEqual(['first_1', 'second']);
  });

  it('when a PostgreSQL lock is given, then only the PostgreSQL text carries it', () => {
    const statement = shared('SELECT 1 FROM t WHERE id = :id', { postgresLock: 'FOR SHARE' });
    expect(statement.sqlite).toBe('SELECT 1 FROM t WHERE id = :id');
    expect(statement.postgres).toBe('SELECT 1 FROM t WHERE id = $1 FOR SHARE');
  });

  it.each([
    ['a quoted colon', "SELECT * FROM t WHERE at > '10:30' AND id = :id", 'cannot quote a colon'],
    ['a ? placeholder', 'SELECT * FROM t WHERE id = ?', 'never ? or $n'],
    ['a $n placeholder', 'SELECT * FROM t WHERE id = $1', 'never ? or $n'],
  ])('when the text has %s, then it is refused as it loads', (_label, text, message) => {
    expect(() => shared(text)).toThrow(message);
  });
});

describe('the parameters the type checker derives (checked by tsc)', () => {
  it('when the text names parameters, then exactly those names are required', () => {
    expectTypeOf<ParameterNames<'SELECT :a::int, b FROM t WHERE c = :c_2 OR d = :a'>>().toEqualTypeOf<'a' | 'c_2'>();
    const statement = shared('SELECT * FROM t WHERE a = :a AND b = :b');
    // @ts-expect-error `b` is missing: a compile error, since at run time it would silently be bound as null.
    expect(statement.bindPostgres({ a: 1 })[1]).toEqual([1, undefined]);
  });

  it('when the text is not a literal, then no call can satisfy its parameters', () => {
    const built: string = ['SELECT * FROM t WHERE a = ', ':a'].join('');
    const statement = shared(built);
    // @ts-expect-error the parameters of a text built at run time cannot be checked.
    expect(statement.bindPostgres({ a: 1 })[1]).toEqual([1]);
  });
});

/** Every shared statement of every module in src/store/sql/, named `file: group.key`. */
const sqlDirectory = join(import.meta.dirname, '../../src/store/sql');
const statements: Array<[string, SharedStatement<string>]> = [];
for (const file of readdirSync(sqlDirectory).filter((name) => name.endsWith('.ts') && name !== 'statement.ts')) {
  const module = (await import(join(sqlDirectory, file))) as Record<string, unknown>;
  for (const [group, members] of Object.entries(module))
    if (typeof members === 'object' && members !== null)
      for (const [key, value] of Object.entries(members))
        if (typeof (value as Partial<SharedStatement<string>>).bindPostgres === 'function')
          statements.push([`${file}: ${group}.${key}`, value as SharedStatement<string>]);
}

describe('every shared statement on both schemas', () => {
  let sqlite: Database.Database;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let postgres: pg.Client;
  beforeAll(async () => {
    sqlite = openDatabase(':memory:');
    database = await createTestDatabase();
    postgres = new pg.Client({ connectionString: database.url });
    await postgres.connect();
  });
  afterAll(async () => {
    sqlite?.close();
    await postgres?.end();
    await database?.drop();
  });

  it('when the modules are read, then they hold the statements of the shared resources', () => {
    expect(statements.length).toBeGreaterThan(30);
  });

  it.each(statements)('when %s is prepared, then each database accepts it and asks for exactly its names', async (_name, statement) => {
    const values = Object.fromEntries(statement.postgresNames.map((name) => [name, null]));
    // better-sqlite3 refuses to bind an object that lacks one of the text's named parameters.
    const prepared = sqlite.prepare(statement.sqlite);
    expect(() => prepared.bind(values)).not.toThrow();
    for (const left of statement.postgresNames) {
      const { [left]: _, ...fewer } = values;
      expect(() => sqlite.prepare(statement.sqlite).bind(fewer), left).toThrow(`Missing named parameter "${left}"`);
    }
    // PREPARE parses and plans without running; PostgreSQL then reports the parameters it found.
    await postgres.query(`PREPARE shared_statement AS ${statement.postgres}`);
    try {
      const { rows } = await postgres.query<{ count: number }>(
        `SELECT cardinality(parameter_types) AS count FROM pg_prepared_statements WHERE name = 'shared_statement'`,
      );
      expect(rows[0]?.count).toBe(statement.postgresNames.length);
    } finally {
      await postgres.query('DEALLOCATE shared_statement');
    }
  });
});
