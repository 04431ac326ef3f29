import type pg from 'pg';
import { StoreConflict } from '../errors.js';
import type { Procedure, ProcedureDriver, Step } from '../sql/procedure.js';
import { all, inTransaction, isUniqueViolation, one, type Queryable, run } from './database.js';

async function runStep(db: Queryable, step: Step): Promise<unknown> {
  const bound = step.statement.bindPostgres(step.params);
  try {
    if (step.kind === 'one') return await one(db, ...bound);
    if (step.kind === 'all') return await all(db, ...bound);
    return await run(db, ...bound);
  } catch (error) {
    // The transaction is aborted either way; the conflict is what leaves the store.
    if (step.unique !== undefined && isUniqueViolation(error)) throw new StoreConflict(step.unique);
    throw error;
  }
}

/** Runs every step as it comes, awaiting each and handing its result back. */
async function drive<Result>(db: Queryable, procedure: Procedure<Result>): Promise<Result> {
  let next = procedure.next();
  while (!next.done) next = procedure.next(await runStep(db, next.value));
  return next.value;
}

/**
 * Procedures (../sql/procedure.ts) on PostgreSQL: a transaction runs its steps on one client inside `inTransaction`,
 * which runs it again, from a new generator, after a serialization failure or a deadlock, and reports a lost
 * connection as `StoreUnavailable`; outside a transaction, each step is a statement on the pool, retried the same way.
 */
export function postgresProcedures(pool: pg.Pool): ProcedureDriver {
  return {
    transaction: (procedure) => inTransaction(pool, (client) => drive(client, procedure())),
    direct: (procedure) => drive(pool, procedure()),
  };
}
