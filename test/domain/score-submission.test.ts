import { describe, expect, it } from 'vitest';
import type { FormDefinition } from '../../src/domain/schema-types.js';
import { gradeForScore } from '../../src/domain/scoring/grade-for-score.js';
import { scoreSubmission } from '../../src/domain/scoring/score-submission.js';
import { form, hidden, multipleChoice, number, option, singleChoice, step, without } from './fixtures.js';

const definition: FormDefinition = form(
  [
    step('a', singleChoice('size', ['solo:0', 'team:10', 'enterprise:30']), hidden('utm')),
    step('b', multipleChoice('needs', ['crm:5', 'api:-2', 'docs']), number('budget')),
  ],
  {
    scoring: {
      rules: [
        { id: 'big-budget', when: { field: 'budget', op: 'gte', value: 10000 }, points: 20 },
        { id: 'from-ads', when: { field: 'utm', op: 'equals', value: 'ads' }, points: 0 },
        { id: 'no-budget', when: { field: 'budget', op: 'is_not_answered' }, points: -5 },
      ],
      grades: [
        { label: 'B', min_score: 20 },
        { label: 'A', min_score: 40 },
        { label: 'C', min_score: 0 },
      ],
    },
  },
);

describe('scoreSubmission', () => {
  it('when options and rules apply, then the score is their sum and the breakdown lists each in form order, then rules', () => {
    const result = scoreSubmission(definition, { needs: ['api', 'crm', 'docs'], size: 'enterprise', budget: 20000 }, { utm: 'ads' });
    expect(result.breakdown).toEqual([
      { source: 'option', field: 'size', option: 'enterprise', points: 30 },
      { source: 'option', field: 'needs', option: 'crm', points: 5 },
      { source: 'option', field: 'needs', option: 'api', points: -2 },
      { source: 'rule', rule_id: 'big-budget', points: 20 },
      { source: 'rule', rule_id: 'from-ads', points: 0 },
    ]);
    expect(result.score).toBe(53);
    expect(result.grade).toBe('A');
  });

  it('when a chosen option has no score, then it is not in the breakdown', () => {
    const result = scoreSubmission(definition, { size: 'solo', needs: ['docs'], budget: 1 });
    expect(result).toEqual({ score: 0, grade: 'C', breakdown: [] });
  });

  it('when a stored option lacks `score`, then it counts as 0', () => {
    const bare = form([step('a', { ...singleChoice('size', []), options: [without(option('x:7'), 'score')] })]);
    expect(scoreSubmission(bare, { size: 'x' }).breakdown).toEqual([]);
  });

  it('when a rule holds for 0 points, then it is still listed', () => {
    expect(scoreSubmission(definition, { budget: 1 }, { utm: 'ads' }).breakdown).toEqual([
      { source: 'rule', rule_id: 'from-ads', points: 0 },
    ]);
  });

  it('when the score is below every grade, then the grade is null', () => {
    expect(scoreSubmission(definition, { needs: ['api'] })).toEqual({
      score: -7,
      grade: null,
      breakdown: [
        { source: 'option', field: 'needs', option: 'api', points: -2 },
        { source: 'rule', rule_id: 'no-budget', points: -5 },
      ],
    });
  });

  it('when the form has no grades, then the grade is null', () => {
    expect(scoreSubmission({ ...definition, scoring: { rules: [], grades: [] } }, { size: 'team' }).grade).toBeNull();
  });

  it('when a hidden value is sent as an answer, then scoring rules do not see it', () => {
    expect(scoreSubmission(definition, { utm: 'ads', budget: 1 }).breakdown).toEqual([]);
  });

  it('when answers name unknown fields or options (an edited form), then they are ignored', () => {
    expect(scoreSubmission(definition, { size: 'gone', needs: ['crm', 'gone'], removed: 'x', budget: 1 }).score).toBe(5);
  });

  it('when a single choice answer is an array, or a multiple choice answer a string, then it scores nothing', () => {
    expect(scoreSubmission(definition, { size: ['team'], needs: 'crm', budget: 1 }).score).toBe(0);
  });
});

describe('gradeForScore', () => {
  const grades = [
    { label: 'B', min_score: 20 },
    { label: 'A', min_score: 40 },
    { label: 'C', min_score: 0 },
  ];

  it('when the score reaches several grades, then the one with the highest min_score wins', () => {
    expect(gradeForScore(45, grades)).toBe('A');
    expect(gradeForScore(39, grades)).toBe('B');
  });

  it('when the score equals a min_score, then that grade is reached', () => {
    expect(gradeForScore(20, grades)).toBe('B');
    expect(gradeForScore(0, grades)).toBe('C');
  });

  it('when the score reaches no grade, then null', () => {
    expect(gradeForScore(-1, grades)).toBeNull();
    expect(gradeForScore(100, [])).toBeNull();
  });

  it('when stored grades share a min_score, then the label that sorts first wins whatever the order', () => {
    expect(
      gradeForScore(10, [
        { label: 'Y', min_score: 5 },
        { label: 'X', min_score: 5 },
      ]),
    ).toBe('X');
    expect(
      gradeForScore(10, [
        { label: 'X', min_score: 5 },
        { label: 'Y', min_score: 5 },
      ]),
    ).toBe('X');
  });
});
