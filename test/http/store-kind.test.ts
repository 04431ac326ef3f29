/**
 * The HTTP suite runs twice, on SQLite (`api`) and on PostgreSQL (`api-postgres`, TEST_STORE=postgres). This file
 * checks that each run's test APIs really stand on the store it names, whatever files its worker ran before.
 */
import { expect, it } from 'vitest';
import { useWatchedApi } from '../support/http-checks.js';

const api = useWatchedApi();

it('when a test API starts, then its store is the one the project names', () => {
  const expected = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
  expect('pool' in api.store ? 'postgres' : 'db' in api.store ? 'sqlite' : 'unknown').toBe(expected);
});
