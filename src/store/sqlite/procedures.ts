import type Database from 'better-sqlite3';
import { StoreConflict } from '../errors.js';
import type { Procedure, ProcedureDriver, Step } from '../sql/procedure.js';
import { prepared } from './shared-sql.js';
import { transaction } from './statements.js';

/** better-sqlite3's codes for a broken UNIQUE constraint or primary key. */
const uniqueCodes = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

function runStep(db: Database.Database, step: Step): unknown {
  const statement = prepared(db, step.statement);
  try {
    if (step.kind === 'one') return statement.get(step.params);
    if (step.kind === 'all') return statement.all(step.params);
    return statement.run(step.params).changes;
  } catch (error) {
    if (step.unique !== undefined && uniqueCodes.has(String((error as { code?: unknown }).code))) throw new StoreConflict(step.unique);
    throw error;
  }
}

/** Runs every step as it comes, handing each result back, synchronously. */
function drive<Result>(db: Database.Database, procedure: Procedure<Result>): Result {
  let next = procedure.next();
  while (!next.done) next = procedure.next(runStep(db, next.value));
  return next.value;
}

/**
 * Procedures (../sql/procedure.ts) on SQLite: a transaction is one `BEGIN IMMEDIATE`, since a procedure may write
 * after reading, and one writer at a time holds the file, so nothing runs between its steps.
 */
export function sqliteProcedures(db: Database.Database): ProcedureDriver {
  return {
    async transaction(procedure) {
      return transaction(db, 'immediate', () => drive(db, procedure()));
    },
    async direct(procedure) {
      return drive(db, procedure());
    },
  };
}
