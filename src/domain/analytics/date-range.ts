/**
 * The day range of an analytics query (UTC days, both ends included). Defaults and limits are the ones
 * GET /v1/analytics documents: `to` defaults to today, `from` to 29 days before `to` (30 days in all), and a
 * range must not be reversed nor longer than `MAX_RANGE_DAYS` (the most `Analytics.daily` holds).
 */
import type { ValidationIssue } from '../../contract.js';
import { invalidValue } from '../errors.js';

export const MAX_RANGE_DAYS = 366;
export const DEFAULT_RANGE_DAYS = 30;

const DAY_MS = 86_400_000;

export interface DayRange {
  from: string;
  to: string;
  /** Every day of the range, oldest first. */
  days: string[];
}

const dayNumber = (day: string): number => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
const dayText = (number: number): string => new Date(number * DAY_MS).toISOString().slice(0, 10);

export const utcDayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** `from` and `to` are calendar dates already (the request validator checks `format: date`). */
export function resolveDayRange(query: { from?: string | undefined; to?: string | undefined }, today: string): DayRange {
  const to = query.to ?? today;
  const from = query.from ?? dayText(dayNumber(to) - (DEFAULT_RANGE_DAYS - 1));
  const length = dayNumber(to) - dayNumber(from) + 1;
  const issue = (message: string): ValidationIssue => ({
    location: 'query',
    pointer: query.from === undefined ? '/to' : '/from',
    code: 'invalid_range',
    message,
  });
  if (length < 1) throw invalidValue([issue(`from (${from}) is after to (${to})`)], 'The date range is reversed; see details.errors.');
  if (length > MAX_RANGE_DAYS) {
    throw invalidValue(
      [issue(`the range ${from}..${to} has ${length} days; at most ${MAX_RANGE_DAYS} are allowed`)],
      `The date range is longer than ${MAX_RANGE_DAYS} days; see details.errors.`,
    );
  }
  const start = dayNumber(from);
  return { from, to, days: Array.from({ length }, (_, offset) => dayText(start + offset)) };
}
