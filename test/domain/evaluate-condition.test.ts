import { describe, expect, it } from 'vitest';
import { indexFieldsByRef } from '../../src/domain/forms/form-index.js';
import { evaluateCondition } from '../../src/domain/logic/evaluate-condition.js';
import type { Answers, Condition } from '../../src/domain/schema-types.js';
import {
  consent,
  date,
  email,
  hidden,
  longText,
  multipleChoice,
  number,
  rating,
  shortText,
  singleChoice,
  step,
  yesNo,
} from './fixtures.js';

const fields = indexFieldsByRef([
  step(
    'all',
    shortText('name'),
    longText('notes'),
    email('mail'),
    number('budget'),
    rating('fit'),
    date('start'),
    yesNo('urgent'),
    consent('terms'),
    singleChoice('size', ['small', 'large']),
    multipleChoice('needs', ['crm', 'api', 'sso']),
    hidden('utm'),
  ),
]);

const holds = (condition: Condition, answers: Answers): boolean => evaluateCondition(condition, answers, fields);

describe('evaluateCondition: comparisons by field type', () => {
  it('when a number is compared, then it compares numerically', () => {
    const answers = { budget: 1500 };
    expect(holds({ field: 'budget', op: 'equals', value: 1500 }, answers)).toBe(true);
    expect(holds({ field: 'budget', op: 'gt', value: 999 }, answers)).toBe(true); // "1500" > "999" would be false as strings
    expect(holds({ field: 'budget', op: 'gte', value: 1500 }, answers)).toBe(true);
    expect(holds({ field: 'budget', op: 'lt', value: 1500 }, answers)).toBe(false);
    expect(holds({ field: 'budget', op: 'lte', value: 1500.5 }, answers)).toBe(true);
    expect(holds({ field: 'budget', op: 'not_equals', value: 1 }, answers)).toBe(true);
  });

  it('when a rating is compared, then it compares numerically', () => {
    expect(holds({ field: 'fit', op: 'gte', value: 4 }, { fit: 4 })).toBe(true);
    expect(holds({ field: 'fit', op: 'gt', value: 4 }, { fit: 4 })).toBe(false);
  });

  it('when a date is compared, then it compares as a date', () => {
    const answers = { start: '2025-03-10' };
    expect(holds({ field: 'start', op: 'gt', value: '2025-02-28' }, answers)).toBe(true);
    expect(holds({ field: 'start', op: 'lt', value: '2025-12-01' }, answers)).toBe(true);
    expect(holds({ field: 'start', op: 'equals', value: '2025-03-10' }, answers)).toBe(true);
    expect(holds({ field: 'start', op: 'lte', value: '2024-12-31' }, answers)).toBe(false);
  });

  it('when a date answer or value is not a calendar date, then no comparison holds', () => {
    expect(holds({ field: 'start', op: 'lt', value: '2025-12-01' }, { start: '2025-02-30' })).toBe(false);
    expect(holds({ field: 'start', op: 'not_equals', value: '2025-12-01' }, { start: 'soon' })).toBe(false);
    expect(holds({ field: 'start', op: 'gt', value: '2025-13-01' }, { start: '2025-03-10' })).toBe(false);
  });

  it('when text is compared with equals, then it matches exactly (case-sensitive)', () => {
    expect(holds({ field: 'name', op: 'equals', value: 'Acme' }, { name: 'Acme' })).toBe(true);
    expect(holds({ field: 'name', op: 'equals', value: 'acme' }, { name: 'Acme' })).toBe(false);
    expect(holds({ field: 'name', op: 'not_equals', value: 'acme' }, { name: 'Acme' })).toBe(true);
  });

  it('when text is tested with contains, then it is a case-insensitive substring match', () => {
    expect(holds({ field: 'notes', op: 'contains', value: 'ENTERPRISE' }, { notes: 'We are an Enterprise shop' })).toBe(true);
    expect(holds({ field: 'mail', op: 'contains', value: '@acme.com' }, { mail: 'Jo@ACME.com' })).toBe(true);
    expect(holds({ field: 'notes', op: 'contains', value: 'startup' }, { notes: 'Enterprise' })).toBe(false);
  });

  it('when a hidden value is compared, then it behaves as text', () => {
    expect(holds({ field: 'utm', op: 'contains', value: 'linkedin' }, { utm: 'paid-LinkedIn' })).toBe(true);
    expect(holds({ field: 'utm', op: 'equals', value: 'ads' }, { utm: 'ads' })).toBe(true);
  });

  it('when booleans are compared, then true and false are distinct answers', () => {
    expect(holds({ field: 'urgent', op: 'equals', value: false }, { urgent: false })).toBe(true);
    expect(holds({ field: 'urgent', op: 'equals', value: true }, { urgent: false })).toBe(false);
    expect(holds({ field: 'terms', op: 'not_equals', value: true }, { terms: false })).toBe(true);
  });

  it('when a single choice is compared, then it matches the option value', () => {
    expect(holds({ field: 'size', op: 'equals', value: 'large' }, { size: 'large' })).toBe(true);
    expect(holds({ field: 'size', op: 'not_equals', value: 'large' }, { size: 'small' })).toBe(true);
  });

  it('when a multiple choice answer is tested with equals, then it holds only for exactly that one option', () => {
    expect(holds({ field: 'needs', op: 'equals', value: 'api' }, { needs: ['api'] })).toBe(true);
    expect(holds({ field: 'needs', op: 'equals', value: 'api' }, { needs: ['api', 'crm'] })).toBe(false);
    expect(holds({ field: 'needs', op: 'not_equals', value: 'api' }, { needs: ['api', 'crm'] })).toBe(true);
  });

  it('when a multiple choice answer is tested with contains, then it holds when the option is among those chosen', () => {
    expect(holds({ field: 'needs', op: 'contains', value: 'crm' }, { needs: ['api', 'crm'] })).toBe(true);
    expect(holds({ field: 'needs', op: 'contains', value: 'sso' }, { needs: ['api', 'crm'] })).toBe(false);
  });

  it('when the answer has the wrong type for the field, then no comparison holds, not_equals included', () => {
    expect(holds({ field: 'budget', op: 'equals', value: 1500 }, { budget: '1500' })).toBe(false);
    expect(holds({ field: 'budget', op: 'not_equals', value: 1500 }, { budget: '1500' })).toBe(false);
    expect(holds({ field: 'budget', op: 'gt', value: 1 }, { budget: '1500' })).toBe(false);
    expect(holds({ field: 'urgent', op: 'equals', value: true }, { urgent: 'true' })).toBe(false);
    expect(holds({ field: 'needs', op: 'contains', value: 'api' }, { needs: 'api' })).toBe(false);
  });
});

describe('evaluateCondition: unanswered fields and presence', () => {
  const unanswered: [string, Answers][] = [
    ['missing', {}],
    ['an empty string', { name: '', needs: [] }],
    ['an empty array', { needs: [] }],
  ];

  it.each(unanswered)('when the answer is %s, then no comparison holds, not_equals included', (_, answers) => {
    expect(holds({ field: 'name', op: 'not_equals', value: 'x' }, answers)).toBe(false);
    expect(holds({ field: 'name', op: 'contains', value: '' }, answers)).toBe(false);
    expect(holds({ field: 'needs', op: 'not_equals', value: 'api' }, answers)).toBe(false);
    expect(holds({ field: 'budget', op: 'lt', value: 100 }, answers)).toBe(false);
  });

  it('when a field has an answer, then is_answered holds and is_not_answered does not', () => {
    expect(holds({ field: 'urgent', op: 'is_answered' }, { urgent: false })).toBe(true);
    expect(holds({ field: 'budget', op: 'is_not_answered' }, { budget: 0 })).toBe(false);
  });

  it('when a field has an empty string or array, then it counts as not answered', () => {
    expect(holds({ field: 'name', op: 'is_answered' }, { name: '' })).toBe(false);
    expect(holds({ field: 'needs', op: 'is_not_answered' }, { needs: [] })).toBe(true);
  });

  it('when a ref names something on Object.prototype, then it is not an answer', () => {
    expect(holds({ field: 'constructor', op: 'is_answered' }, {})).toBe(false);
    expect(holds({ field: 'toString', op: 'is_not_answered' }, {})).toBe(true);
  });

  it('when the field is not in the form, then comparisons are false and presence follows the answers', () => {
    expect(holds({ field: 'ghost', op: 'equals', value: 'x' }, { ghost: 'x' })).toBe(false);
    expect(holds({ field: 'ghost', op: 'is_answered' }, { ghost: 'x' })).toBe(true);
  });
});

describe('evaluateCondition: all and any', () => {
  const answers = { budget: 5000, size: 'large' };
  const big: Condition = { field: 'budget', op: 'gte', value: 1000 };
  const small: Condition = { field: 'size', op: 'equals', value: 'small' };

  it('when every nested condition holds, then all holds; when one fails, then it does not', () => {
    expect(holds({ all: [big, { field: 'size', op: 'equals', value: 'large' }] }, answers)).toBe(true);
    expect(holds({ all: [big, small] }, answers)).toBe(false);
  });

  it('when at least one nested condition holds, then any holds; when none does, then it does not', () => {
    expect(holds({ any: [small, big] }, answers)).toBe(true);
    expect(holds({ any: [small, { field: 'urgent', op: 'is_answered' }] }, answers)).toBe(false);
  });

  it('when groups nest, then they combine', () => {
    expect(holds({ any: [small, { all: [big, { field: 'urgent', op: 'is_not_answered' }] }] }, answers)).toBe(true);
  });
});
