import type Database from 'better-sqlite3';
import type { SharedStatement, StatementParameters } from '../sql/statement.js';
import { statement } from './statements.js';

/**
 * A statement shared with the PostgreSQL store, prepared on this connection once (`statement` caches it by its
 * text) and typed to be bound from its named parameters.
 */
export function prepared<Name extends string>(
  db: Database.Database,
  shared: SharedStatement<Name>,
): Database.Statement<StatementParameters<Name>> {
  return statement(db, shared.sqlite) as Database.Statement<StatementParameters<Name>>;
}
