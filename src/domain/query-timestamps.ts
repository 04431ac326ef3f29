import { badRequest } from './errors.js';

/**
 * A timestamp of a list filter (`created_gte`, `created_lt`) in the stored form (UTC, milliseconds), since the
 * stores compare timestamps as text. RFC 3339 allows a leap second (`23:59:60`), which JavaScript dates cannot
 * hold: it is refused, never a 500.
 */
export function normalisedTimestamp(value: string | undefined, parameter: string): string | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) {
    throw badRequest('invalid_parameters', `${parameter} is not a usable timestamp.`, [
      { location: 'query', pointer: `/${parameter}`, code: 'format', message: 'must be an ISO 8601 date-time without a leap second' },
    ]);
  }
  return new Date(time).toISOString();
}
