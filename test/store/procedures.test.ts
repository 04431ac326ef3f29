/**
 * Procedures (src/store/sql/procedure.ts) as each store's driver runs them: every step's result handed back, all of a
 * transaction or none of it, a unique violation that the step names as a refusal reported alike on both stores, and
 * on PostgreSQL a collision run again from a fresh generator and a lost connection reported as `StoreUnavailable`.
 */
import type Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreConflict } from '../../src/store/errors.js';
import { openPostgres } from '../../src/store/postgres/database.js';
import { postgresProcedures } from '../../src/store/postgres/procedures.js';
import { all, one, type Procedure, type ProcedureDriver, returning, run } from '../../src/store/sql/procedure.js';
import { shared } from '../../src/store/sql/statement.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { sqliteProcedures } from '../../src/store/sqlite/procedures.js';
import { createTestDatabase } from '../support/postgres.js';

const probeSql = {
  insert: shared('INSERT INTO procedure_probe (id, n) VALUES (:id, :n)'),
  byId: returning<{ id: number; n: number }>()(shared('SELECT id, n FROM procedure_probe WHERE id = :id')),
  every: returning<{ id: number; n: number }>()(shared('SELECT id, n FROM procedure_probe ORDER BY id')),
  bump: shared('UPDATE procedure_probe SET n = n + 1 WHERE n >= :from'),
  clear: shared('DELETE FROM procedure_probe WHERE id >= :from'),
};
const createProbe = 'CREATE TABLE procedure_probe (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)';

let sqlite: Database.Database;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
beforeAll(async () => {
  sqlite = openDatabase(':memory:');
  sqlite.exec(createProbe);
  database = await createTestDatabase();
  pool = await openPostgres(database.url, { max: 4 });
  await pool.query(createProbe);
  // A statement that fails as a serialization failure does, so that a collision can be made at will.
  await pool.query(
    `CREATE FUNCTION procedure_collision() RETURNS integer LANGUAGE plpgsql AS $body$
     BEGIN RAISE EXCEPTION 'collision' USING ERRCODE = 'serialization_failure'; END $body$`,
  );
});
afterAll(async () => {
  sqlite?.close();
  // Dropped again, so the database keeps the schema it was handed out with.
  await pool?.query('DROP TABLE procedure_probe; DROP FUNCTION procedure_collision');
  await pool?.end();
  await database?.drop();
});

const drivers: Array<[string, () => ProcedureDriver]> = [
  ['sqlite', () => sqliteProcedures(sqlite)],
  ['postgres', () => postgresProcedures(pool)],
];

describe.each(drivers)('procedures on the %s store', (_kind, driver) => {
  const rows = () => driver().direct(() => all(probeSql.every, {}));
  const clear = () => driver().direct(() => run(probeSql.clear, { from: 0 }));

  it('when a procedure runs, then each step gets its result: a row, the rows, the changed count', async () => {
    await clear();
    const result = await driver().transaction(function* (): Procedure<unknown[]> {
      yield* run(probeSql.insert, { id: 1, n: 10 });
      yield* run(probeSql.insert, { id: 2, n: 20 });
      const bumped = yield* run(probeSql.bump, { from: 15 });
      return [yield* one(probeSql.byId, { id: 2 }), yield* one(probeSql.byId, { id: 3 }), yield* all(probeSql.every, {}), bumped];
    });
    expect(result).toEqual([
      { id: 2, n: 21 },
      undefined,
      [
        { id: 1, n: 10 },
        { id: 2, n: 21 },
      ],
      1,
    ]);
  });

  it('when a step of a transaction fails, then none of its steps is kept', async () => {
    await clear();
    await driver().direct(() => run(probeSql.insert, { id: 1, n: 0 }));
    const failing = driver().transaction(function* () {
      yield* run(probeSql.insert, { id: 5, n: 0 });
      yield* run(probeSql.bump, { from: 0 });
      yield* run(probeSql.insert, { id: 1, n: 0 });
    });
    await expect(failing).rejects.toThrow();
    expect(await rows()).toEqual([{ id: 1, n: 0 }]);
  });

  it('when a step that names a refusal breaks a unique constraint, then the refusal is thrown and nothing is kept', async () => {
    await clear();
    await driver().direct(() => run(probeSql.insert, { id: 1, n: 0 }));
    const refused = driver().transaction(function* () {
      yield* run(probeSql.insert, { id: 2, n: 0 });
      yield* run(probeSql.insert, { id: 1, n: 0 }, { unique: 'member_exists' });
    });
    await expect(refused).rejects.toEqual(new StoreConflict('member_exists'));
    await expect(driver().direct(() => run(probeSql.insert, { id: 1, n: 0 }, { unique: 'passkey_exists' }))).rejects.toEqual(
      new StoreConflict('passkey_exists'),
    );
    await expect(driver().direct(() => one(probeSql.byId, { id: 1 }, { unique: 'link_spent' }))).resolves.toEqual({ id: 1, n: 0 });
    // Another constraint broken by a step that names a refusal, or a unique one by a step that names none: the
    // database's error leaves as it was.
    const notNull = await driver()
      .direct(() => run(probeSql.insert, { id: 3, n: null }, { unique: 'member_exists' }))
      .catch((error: unknown) => error);
    expect(notNull).toBeInstanceOf(Error);
    expect(notNull).not.toBeInstanceOf(StoreConflict);
    const unnamed = await driver()
      .direct(() => run(probeSql.insert, { id: 1, n: 0 }))
      .catch((error: unknown) => error);
    expect(unnamed).not.toBeInstanceOf(StoreConflict);
    expect(await rows()).toEqual([{ id: 1, n: 0 }]);
  });
});

describe('procedures on PostgreSQL under faults', () => {
  const collisionSql = { collide: shared('SELECT procedure_collision()') };

  it('when a transaction collides, then it runs again from a new generator, and only the last run is kept', async () => {
    await pool.query('DELETE FROM procedure_probe');
    let runs = 0;
    const result = await postgresProcedures(pool).transaction(function* () {
      runs += 1;
      const attempt = runs;
      yield* run(probeSql.insert, { id: 10 + attempt, n: attempt });
      if (attempt === 1) yield* run(collisionSql.collide, {});
      return attempt;
    });
    expect(result).toBe(2);
    expect(runs).toBe(2);
    expect((await pool.query('SELECT id, n FROM procedure_probe')).rows).toEqual([{ id: 12, n: 2 }]);
  });

  it('when every run collides, then the store reports contention', async () => {
    const colliding = postgresProcedures(pool).transaction(() => run(collisionSql.collide, {}));
    await expect(colliding).rejects.toMatchObject({ name: 'StoreUnavailable', reason: 'contention' });
  });

  it('when the connection is lost, then the store is unavailable (connection_lost), in a transaction or not', async () => {
    const lost = new pg.Pool({ connectionString: database.url, max: 1 });
    await lost.end();
    const driver = postgresProcedures(lost);
    await expect(driver.transaction(() => one(probeSql.byId, { id: 1 }))).rejects.toMatchObject({
      name: 'StoreUnavailable',
      reason: 'connection_lost',
    });
    await expect(driver.direct(() => one(probeSql.byId, { id: 1 }))).rejects.toMatchObject({
      name: 'StoreUnavailable',
      reason: 'connection_lost',
    });
  });
});
