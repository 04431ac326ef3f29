import { describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import { AppError } from '../../src/domain/errors.js';
import { mergeValues, resumedSubmission } from '../../src/domain/submissions/resume.js';
import { completeContext } from '../../src/store/rows/submissions.js';
import { endForm, form, hidden, number, shortText, singleChoice, step, yesNo } from './fixtures.js';

// intro (name*) → qualify (has_budget*; no budget ends the form) → budget (amount*, tier scored 10/30, utm hidden).
const version = {
  version: 3,
  ...form(
    [
      step('intro', shortText('name', { required: true })),
      step('qualify', yesNo('has_budget', { required: true })),
      step('budget', number('amount', { required: true }), singleChoice('tier', ['small:10', 'large:30']), hidden('utm')),
    ],
    { logic: [endForm('no_budget', 'qualify', { field: 'has_budget', op: 'equals', value: false })] },
  ),
};

const partial = (answers: Schema<'Submission'>['answers'], extra: Partial<Schema<'Submission'>> = {}): Schema<'Submission'> => ({
  id: 'sub_000000000000000000000001',
  object: 'submission',
  form_id: 'form_000000000000000000000001',
  form_version: 5,
  status: 'partial',
  test: false,
  answers,
  hidden: {},
  visited_steps: ['intro'],
  score: 0,
  grade: null,
  score_breakdown: [],
  context: completeContext(undefined),
  metadata: {},
  completed_at: null,
  scored_at: '2026-01-01T00:00:00.000Z',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});
const at = '2026-01-02T00:00:00.000Z';

const refusal = (run: () => unknown): AppError => {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('mergeValues', () => {
  it('when changes are given, then a value replaces, null clears, and a ref left out keeps its stored value', () => {
    expect(mergeValues({ a: 1, b: 2, c: 3 }, { b: 20, c: null, d: 4 })).toEqual({ a: 1, b: 20, d: 4 });
  });

  it('when no changes are given, then the stored values come back as a copy', () => {
    const stored = { a: 1 };
    const merged = mergeValues(stored, undefined);
    expect(merged).toEqual(stored);
    expect(merged).not.toBe(stored);
  });
});

describe('resumedSubmission', () => {
  it('when answers are added, then the path, score and timestamps follow and form_version is the version it started on', () => {
    const next = resumedSubmission(partial({ name: 'Ana' }), { answers: { has_budget: true, tier: 'large' } }, version, at);
    expect(next).toMatchObject({
      status: 'partial',
      answers: { name: 'Ana', has_budget: true, tier: 'large' },
      visited_steps: ['intro', 'qualify', 'budget'],
      score: 30,
      form_version: 3,
      scored_at: at,
      updated_at: at,
      created_at: '2026-01-01T00:00:00.000Z',
    });
  });

  it('when completing without a required answer of a visited step, then 422 invalid_answers names it', () => {
    const error = refusal(() => resumedSubmission(partial({ name: 'Ana', has_budget: true }), { status: 'completed' }, version, at));
    expect(error.code).toBe('invalid_answers');
    expect(error.details?.errors?.map((issue) => `${issue.code} ${issue.pointer}`)).toEqual(['required /answers/amount']);
  });

  it('when a changed answer ends the form before a step holding a stored answer, then not_visited until it is cleared', () => {
    const stored = partial({ name: 'Ana', has_budget: true, amount: 500 });
    const error = refusal(() => resumedSubmission(stored, { answers: { has_budget: false } }, version, at));
    expect(error.details?.errors?.map((issue) => `${issue.code} ${issue.pointer}`)).toEqual(['not_visited /answers/amount']);
    const cleared = resumedSubmission(stored, { answers: { has_budget: false, amount: null }, status: 'completed' }, version, at);
    expect(cleared).toMatchObject({
      status: 'completed',
      visited_steps: ['intro', 'qualify'],
      answers: { name: 'Ana', has_budget: false },
    });
  });

  it('when hidden values are given, then they merge like answers', () => {
    const next = resumedSubmission(
      partial({ name: 'Ana', has_budget: true }, { hidden: { utm: 'ads' } }),
      { hidden: { utm: null } },
      version,
      at,
    );
    expect(next.hidden).toEqual({});
  });

  it('when the submission is completed, then 409 submission_completed whatever the update', () => {
    const error = refusal(() => resumedSubmission(partial({ name: 'Ana' }, { status: 'completed' }), { answers: {} }, version, at));
    expect(error).toMatchObject({ status: 409, code: 'submission_completed' });
  });
});
