/**
 * A transaction written once for both stores. A procedure is a generator function that yields steps, each a shared
 * statement (./statement.ts) with its parameters, and receives each step's result back:
 *
 *   function* spend(hash: Buffer, at: string): Procedure<LinkRow | undefined> {
 *     return yield* one(peopleSql.spendLink, { hash, at });
 *   }
 *
 * A driver runs the steps: SQLite synchronously inside one `BEGIN IMMEDIATE` (src/store/sqlite/procedures.ts),
 * PostgreSQL with an await per step inside `inTransaction`, which runs the whole procedure again from a fresh
 * generator after a serialization failure or deadlock (src/store/postgres/procedures.ts). So a procedure must only
 * compute from what its steps return, never keep state outside the generator.
 *
 * The rows a statement gives are declared beside its text (`returning<Row>()(shared(…))`), so `one` and `all` are
 * typed by the statement and its parameters checked by name, as every shared statement's are.
 */
import type { ConflictReason } from '../errors.js';
import type { SharedStatement, StatementParameters } from './statement.js';

/** A shared statement whose rows (its SELECT or RETURNING list) have the shape `Row`; a type only. */
export interface RowStatement<Row, Name extends string> extends SharedStatement<Name> {
  /** Never set: it carries the row type from the statement to the steps that run it. */
  readonly row?: Row;
}

/** Declares the rows of a shared statement: `returning<AccountRow>()(shared('SELECT … FROM accounts …'))`. */
export const returning =
  <Row>() =>
  <Name extends string>(statement: SharedStatement<Name>): RowStatement<Row, Name> =>
    statement;

export interface StepOptions {
  /**
   * The refusal a unique violation of this step is, on both stores: `StoreConflict(unique)`, and the transaction is
   * rolled back. Without it a unique violation leaves the store as the database reported it.
   */
  unique?: ConflictReason;
}

/** One statement for the driver to run: the first row (`one`), every row (`all`), or the rows changed (`run`). */
export interface Step extends StepOptions {
  readonly kind: 'one' | 'all' | 'run';
  readonly statement: SharedStatement<string>;
  readonly params: StatementParameters<string>;
}

/** A running procedure: it yields steps and receives each one's result, and returns `Result`. */
export type Procedure<Result> = Generator<Step, Result, unknown>;

/** The first row the statement gives, undefined when none. */
export function* one<Row, Name extends string>(
  statement: RowStatement<Row, Name>,
  params: StatementParameters<Name>,
  options: StepOptions = {},
): Procedure<Row | undefined> {
  return (yield { kind: 'one', statement, params, ...options }) as Row | undefined;
}

/** Every row the statement gives. */
export function* all<Row, Name extends string>(statement: RowStatement<Row, Name>, params: StatementParameters<Name>): Procedure<Row[]> {
  return (yield { kind: 'all', statement, params }) as Row[];
}

/** Runs the statement; the number of rows it changed. */
export function* run<Name extends string>(
  statement: SharedStatement<Name>,
  params: StatementParameters<Name>,
  options: StepOptions = {},
): Procedure<number> {
  return (yield { kind: 'run', statement, params, ...options }) as number;
}

/** What runs procedures on one store. Both methods take a function that starts the procedure, so it can start again. */
export interface ProcedureDriver {
  /** Runs the procedure in one write transaction: all of its changes are made or none. */
  transaction<Result>(procedure: () => Procedure<Result>): Promise<Result>;
  /**
   * Runs each step on its own, outside a transaction: for one statement, or reads that need no common snapshot.
   */
  direct<Result>(procedure: () => Procedure<Result>): Promise<Result>;
}
