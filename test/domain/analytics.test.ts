import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { resolveDayRange } from '../../src/domain/analytics/date-range.js';
import { funnelFigures, TOP_UTM_SOURCES } from '../../src/domain/analytics/funnel-figures.js';
import { AppError } from '../../src/domain/errors.js';
import type { FunnelTotals } from '../../src/store/submission-store.js';
import { form, shortText, step } from './fixtures.js';

const rangeError = (query: { from?: string; to?: string }): AppError => {
  try {
    resolveDayRange(query, '2026-03-10');
  } catch (error) {
    if (error instanceof AppError) return error;
  }
  throw new Error('expected an AppError');
};

describe('resolveDayRange', () => {
  it('when nothing is given, then the range is the 30 days ending today', () => {
    const range = resolveDayRange({}, '2026-03-10');
    expect([range.from, range.to, range.days.length]).toEqual(['2026-02-09', '2026-03-10', 30]);
    expect(range.days[0]).toBe('2026-02-09');
    expect(range.days.at(-1)).toBe('2026-03-10');
  });

  it('when only to is given, then from is 29 days before it, across a leap day', () => {
    expect(resolveDayRange({ to: '2024-03-10' }, '2026-03-10')).toMatchObject({ from: '2024-02-10', to: '2024-03-10' });
  });

  it('when only from is given, then the range ends today', () => {
    expect(resolveDayRange({ from: '2026-03-08' }, '2026-03-10').days).toEqual(['2026-03-08', '2026-03-09', '2026-03-10']);
  });

  it('when from equals to, then the range is that one day', () => {
    expect(resolveDayRange({ from: '2026-01-01', to: '2026-01-01' }, '2026-03-10').days).toEqual(['2026-01-01']);
  });

  it('when from is after to, then 422 invalid_value with an invalid_range issue on from', () => {
    const error = rangeError({ from: '2026-03-02', to: '2026-03-01' });
    expect(error).toMatchObject({ status: 422, code: 'invalid_value' });
    expect(error.details?.errors).toEqual([expect.objectContaining({ location: 'query', pointer: '/from', code: 'invalid_range' })]);
  });

  it('when from is after to, then the issue and the message say which dates are reversed', () => {
    const error = rangeError({ from: '2026-03-02', to: '2026-03-01' });
    expect(error.message).toBe('The date range is reversed; see details.errors.');
    expect(error.details?.errors?.[0]?.message).toBe('from (2026-03-02) is after to (2026-03-01)');
  });

  it('when the range is too long, then the issue on from gives its length and the limit', () => {
    const error = rangeError({ from: '2024-01-01', to: '2025-01-01' });
    expect(error.message).toBe('The date range is longer than 366 days; see details.errors.');
    expect(error.details?.errors).toEqual([
      {
        location: 'query',
        pointer: '/from',
        code: 'invalid_range',
        message: 'the range 2024-01-01..2025-01-01 has 367 days; at most 366 are allowed',
      },
    ]);
  });

  it('when the range has 367 days, then 422; with 366 days (a leap year) it is accepted', () => {
    expect(rangeError({ from: '2024-01-01', to: '2025-01-01' })).toMatchObject({ code: 'invalid_value' });
    expect(resolveDayRange({ from: '2024-01-01', to: '2024-12-31' }, '2026-03-10').days).toHaveLength(366);
  });
});

describe('funnelFigures', () => {
  const definition = form([step('contact', shortText('name')), step('company', shortText('size')), step('finish', shortText('notes'))], {
    scoring: {
      rules: [],
      grades: [
        { label: 'B', min_score: 10 },
        { label: 'A', min_score: 50 },
        { label: 'AA', min_score: 50 },
      ],
    },
  });
  const range = resolveDayRange({ from: '2026-03-01', to: '2026-03-03' }, '2026-03-10');
  const totals: FunnelTotals = {
    days: [
      { day: '2026-03-01', started: 2, completed: 1, scoreSum: 7, scoreCount: 1 },
      { day: '2026-03-03', started: 1, completed: 1, scoreSum: 0, scoreCount: 1 },
    ],
    steps: [
      { stepId: 'contact', reached: 3, droppedOff: 1 },
      { stepId: 'finish', reached: 2, droppedOff: 0 },
      { stepId: 'removed_step', reached: 9, droppedOff: 9 },
    ],
    grades: [
      { grade: 'Z-old', completed: 1 },
      { grade: null, completed: 1 },
      { grade: 'Gone', completed: 0 },
    ],
    sources: { top: [{ source: 'linkedin', started: 3, completed: 2 }], other: { sources: 0, started: 0, completed: 0 } },
  };
  const noSources: FunnelTotals['sources'] = { top: [], other: { sources: 0, started: 0, completed: 0 } };

  it('when aggregates are given, then totals, rates (4 decimals) and the average (2 decimals) are computed', () => {
    const figures = funnelFigures(definition, totals, range);
    expect(figures.submissions).toEqual({ started: 3, completed: 2, completion_rate: 0.6667 });
    expect(figures.score.average).toBe(3.5);
  });

  it('when steps are reported, then they follow the current version, with zeros for unreached steps and none for removed ones', () => {
    expect(funnelFigures(definition, totals, range).steps).toEqual([
      { step_id: 'contact', title: 'contact', reached: 3, dropped_off: 1, drop_off_rate: 0.3333 },
      { step_id: 'company', title: 'company', reached: 0, dropped_off: 0, drop_off_rate: 0 },
      { step_id: 'finish', title: 'finish', reached: 2, dropped_off: 0, drop_off_rate: 0 },
    ]);
  });

  it('when grades are reported, then current grades come highest first (ties by label), then older labels still counted, then null', () => {
    expect(funnelFigures(definition, totals, range).score.grades).toEqual([
      { label: 'A', count: 0 },
      { label: 'AA', count: 0 },
      { label: 'B', count: 0 },
      { label: 'Z-old', count: 1 },
      { label: null, count: 1 },
    ]);
  });

  it("when sources are reported, then the store's breakdown is the response's, and the top list is as long as the document allows", () => {
    expect(funnelFigures(definition, totals, range).utm_sources).toEqual(totals.sources);
    const analytics = parse(
      readFileSync(fileURLToPath(new URL('../../openapi/components/schemas/Analytics.yaml', import.meta.url)), 'utf8'),
    );
    expect(TOP_UTM_SOURCES).toBe(analytics.properties.utm_sources.properties.top.maxItems);
  });

  it('when a day has no aggregates, then the daily series still lists it with zeros, oldest first', () => {
    expect(funnelFigures(definition, totals, range).daily).toEqual([
      { date: '2026-03-01', started: 2, completed: 1 },
      { date: '2026-03-02', started: 0, completed: 0 },
      { date: '2026-03-03', started: 1, completed: 1 },
    ]);
  });

  it('when nothing completed, then the average is null and rates are 0', () => {
    const figures = funnelFigures(definition, { days: [], steps: [], grades: [], sources: noSources }, range);
    expect(figures.score).toEqual({
      average: null,
      grades: [
        { label: 'A', count: 0 },
        { label: 'AA', count: 0 },
        { label: 'B', count: 0 },
        { label: null, count: 0 },
      ],
    });
    expect(figures.submissions.completion_rate).toBe(0);
  });

  it('when grades share a threshold, then the label that sorts first comes first, whatever the order they are declared in', () => {
    const declared = form([step('contact', shortText('name'))], {
      scoring: {
        rules: [],
        grades: [
          { label: 'AA', min_score: 50 },
          { label: 'B', min_score: 10 },
          { label: 'A', min_score: 50 },
        ],
      },
    });
    expect(
      funnelFigures(declared, { days: [], steps: [], grades: [], sources: noSources }, range).score.grades.map((grade) => grade.label),
    ).toEqual(['A', 'AA', 'B', null]);
  });

  it('when several labels of older versions are counted, then they follow the current grades in name order', () => {
    const grades = [
      { grade: 'Z-old', completed: 1 },
      { grade: 'M-old', completed: 2 },
    ];
    expect(funnelFigures(definition, { days: [], steps: [], grades, sources: noSources }, range).score.grades.slice(3)).toEqual([
      { label: 'M-old', count: 2 },
      { label: 'Z-old', count: 1 },
      { label: null, count: 0 },
    ]);
  });

  it('when more labels were stored than the document lets a response list, then it keeps that many entries, the last one for no grade', () => {
    const analytics = parse(
      readFileSync(fileURLToPath(new URL('../../openapi/components/schemas/Analytics.yaml', import.meta.url)), 'utf8'),
    );
    const maxItems: number = analytics.properties.score.properties.grades.maxItems;
    const grades = Array.from({ length: maxItems + 50 }, (_, index) => ({ grade: `old-${String(index).padStart(3, '0')}`, completed: 1 }));
    const listed = funnelFigures(definition, { days: [], steps: [], grades, sources: noSources }, range).score.grades;
    expect(listed).toHaveLength(maxItems);
    expect(listed.slice(0, 4).map((grade) => grade.label)).toEqual(['A', 'AA', 'B', 'old-000']);
    // The current grades (3) and the null entry leave room for maxItems - 4 older labels.
    expect(listed.at(-2)).toEqual({ label: `old-${String(maxItems - 5).padStart(3, '0')}`, count: 1 });
    expect(listed.at(-1)).toEqual({ label: null, count: 0 });
  });
});
