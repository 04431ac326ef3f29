/** Timestamps clients send (list filters, a key's expiry), read the same way wherever they arrive. */
import { badRequest } from './errors.js';

/** The instants a timestamp of this API can name: what `YYYY-MM-DDTHH:MM:SS.sssZ` writes, years 0000 to 9999 in UTC. */
const earliest = Date.parse('0000-01-01T00:00:00.000Z');
const latest = Date.parse('9999-12-31T23:59:59.999Z');

/** Why a client's timestamp cannot be used, in the words of a validation issue. */
export const unusableTimestampMessage =
  'must be an ISO 8601 date-time without a leap second, between years 0000 and 9999 once converted to UTC';

/**
 * The instant a client's date-time names, in milliseconds, or NaN when it names none this API can store.
 * RFC 3339 allows a leap second (`23:59:60`), which JavaScript dates cannot hold. And an offset can carry a
 * valid text past the range UTC text covers (`9999-12-31T23:59:59-14:00` is in year 10000, which
 * `toISOString` writes `+010000-…`, a text no schema of the API accepts): both are refused, never a 500.
 */
export function instantOf(value: string): number {
  const time = Date.parse(value);
  return time >= earliest && time <= latest ? time : Number.NaN;
}

/**
 * A timestamp of a list filter (`created_gte`, `created_lt`) in the stored form (UTC, milliseconds), since the
 * stores compare timestamps as text.
 */
export function normalisedTimestamp(value: string | undefined, parameter: string): string | undefined {
  if (value === undefined) return undefined;
  const time = instantOf(value);
  if (Number.isNaN(time)) {
    throw badRequest('invalid_parameters', `${parameter} is not a usable timestamp.`, [
      { location: 'query', pointer: `/${parameter}`, code: 'format', message: unusableTimestampMessage },
    ]);
  }
  return new Date(time).toISOString();
}
