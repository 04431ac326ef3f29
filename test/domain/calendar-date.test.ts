import { describe, expect, it } from 'vitest';
import { isAnswered } from '../../src/domain/answers.js';
import { compareCalendarDates, isCalendarDate } from '../../src/domain/calendar-date.js';

describe('isCalendarDate', () => {
  it.each(['2026-01-01', '2026-12-31', '2026-04-30', '2024-02-29', '2000-02-29', '2026-02-28'])(
    'when the value is %s, then it is a date',
    (value) => {
      expect(isCalendarDate(value)).toBe(true);
    },
  );

  it.each([
    ['2026-00-10', 'month 00'],
    ['2026-13-01', 'month 13'],
    ['2026-01-00', 'day 00'],
    ['2026-01-32', 'day 32'],
    ['2026-04-31', 'the 31st of a 30-day month'],
    ['2026-09-31', 'the 31st of September'],
    ['2026-02-29', '29 February of a common year'],
    ['1900-02-29', '29 February of a century that is not a leap year'],
    ['2026-1-01', 'a one-digit month'],
    ['2026-01-01T00:00:00Z', 'a timestamp'],
  ])('when the value is %s (%s), then it is not a date', (value) => {
    expect(isCalendarDate(value)).toBe(false);
  });

  it('when the value is not a string, then it is not a date', () => {
    expect(isCalendarDate(20260101)).toBe(false);
    expect(isCalendarDate({ toString: () => '2026-01-01' })).toBe(false);
    expect(isCalendarDate(null)).toBe(false);
  });
});

describe('compareCalendarDates', () => {
  it('when dates are compared, then earlier is negative, later positive and the same date zero', () => {
    expect(compareCalendarDates('2026-01-01', '2026-01-02')).toBe(-1);
    expect(compareCalendarDates('2026-01-02', '2026-01-01')).toBe(1);
    expect(compareCalendarDates('2026-01-01', '2026-01-01')).toBe(0);
  });
});

describe('isAnswered', () => {
  it('when a value is missing, null, an empty string or an empty array, then it is no answer', () => {
    for (const value of [undefined, null, '', []]) expect(isAnswered(value)).toBe(false);
  });

  it('when a value is 0, false, a non-empty string or array, then it is an answer', () => {
    for (const value of [0, false, 'x', ['a']]) expect(isAnswered(value)).toBe(true);
  });
});
