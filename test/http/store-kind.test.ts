/**
 * The HTTP suite runs twice, on SQLite (`api`) and on PostgreSQL (`api-postgres`, TEST_STORE=postgres). This file
 * checks that each project's test APIs really stand on the store the project is for.
 */
import { expect, it } from 'vitest';
import { useWatchedApi } from '../support/http-checks.js';

const api = useWatchedApi();

it('when a test API starts, then its store is the one its project is for', ({ task }) => {
  const expected = task.file.projectName === 'api-postgres' ? 'postgres' : 'sqlite';
  expect('pool' in api.store ? 'postgres' : 'db' in api.store ? 'sqlite' : 'unknown').toBe(expected);
});
