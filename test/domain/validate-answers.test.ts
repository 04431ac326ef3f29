import { describe, expect, it } from 'vitest';
import type { Answers, Field, FormDefinition, SubmissionStatus } from '../../src/domain/schema-types.js';
import { validateAnswers } from '../../src/domain/submissions/validate-answers.js';
import {
  consent,
  date,
  email,
  endForm,
  form,
  hidden,
  jump,
  longText,
  multipleChoice,
  number,
  phone,
  rating,
  shortText,
  singleChoice,
  step,
  website,
  without,
  yesNo,
} from './fixtures.js';

const codes = (definition: FormDefinition, answers: Answers, hiddenValues: Answers = {}, status: SubmissionStatus = 'completed') =>
  validateAnswers(definition, answers, hiddenValues, status).issues.map(({ pointer, code }) => `${code} ${pointer}`);

/** One field on one step: the answer is checked against that field alone. */
const single = (field: Field) => form([step('only', field)]);
const answerCode = (field: Field, value: unknown): string | undefined => codes(single(field), { [field.ref]: value })[0]?.split(' ')[0];

describe('validateAnswers: each answer against its field', () => {
  it.each<[string, string, Field, unknown]>([
    ['short text within bounds', 'accepted', shortText('t', { min_length: 2, max_length: 5 }), 'abc'],
    ['short text too short', 'too_short', shortText('t', { min_length: 2 }), 'a'],
    ['short text too long', 'too_long', shortText('t', { max_length: 5 }), 'abcdef'],
    ['short text counted in characters, not UTF-16 units', 'accepted', shortText('t', { max_length: 2 }), '😀😀'],
    ['short text over the default max_length', 'too_long', without(shortText('t'), 'max_length'), 'x'.repeat(256)],
    ['long text not a string', 'type', longText('l'), 42],
    ['a valid email', 'accepted', email('e'), 'jo.doe+lead@mail.example.com'],
    ['an email without a domain dot', 'invalid_email', email('e'), 'jo@localhost'],
    ['an email with spaces', 'invalid_email', email('e'), 'jo doe@example.com'],
    ['an email with two @', 'invalid_email', email('e'), 'jo@doe@example.com'],
    ['an email with a double dot', 'invalid_email', email('e'), 'jo..doe@example.com'],
    ['an email not a string', 'type', email('e'), true],
    ['an E.164 phone', 'accepted', phone('p'), '+14155550100'],
    ['a phone without +', 'invalid_phone', phone('p'), '14155550100'],
    ['a phone with a leading 0 country code', 'invalid_phone', phone('p'), '+04155550100'],
    ['a phone with spaces', 'invalid_phone', phone('p'), '+1 415 555 0100'],
    ['a phone too long', 'invalid_phone', phone('p'), '+1234567890123456'],
    ['a number in range', 'accepted', number('n', { minimum: 1, maximum: 10 }), 10],
    ['a number below minimum', 'too_small', number('n', { minimum: 1 }), 0.5],
    ['a number above maximum', 'too_large', number('n', { maximum: 10 }), 10.01],
    ['a number as a string', 'type', number('n'), '5'],
    ['a fraction where whole numbers are required', 'type', number('n', { integer: true }), 2.5],
    ['a whole number where whole numbers are required', 'accepted', number('n', { integer: true }), 3],
    ['a zero number', 'accepted', number('n'), 0],
    ['a known single choice', 'accepted', singleChoice('c', ['a', 'b']), 'b'],
    ['an unknown single choice', 'unknown_option', singleChoice('c', ['a', 'b']), 'z'],
    ['a single choice as an array', 'type', singleChoice('c', ['a', 'b']), ['a']],
    ['known multiple choices', 'accepted', multipleChoice('m', ['a', 'b', 'c']), ['a', 'c']],
    ['an unknown multiple choice', 'unknown_option', multipleChoice('m', ['a', 'b']), ['a', 'z']],
    ['a repeated multiple choice', 'unique_items', multipleChoice('m', ['a', 'b']), ['a', 'a']],
    ['too few multiple choices', 'too_few_selections', multipleChoice('m', ['a', 'b', 'c'], { min_selections: 2 }), ['a']],
    ['too many multiple choices', 'too_many_selections', multipleChoice('m', ['a', 'b', 'c'], { max_selections: 2 }), ['a', 'b', 'c']],
    ['a multiple choice as a string', 'type', multipleChoice('m', ['a']), 'a'],
    ['a multiple choice with a number inside', 'type', multipleChoice('m', ['a']), ['a', 1]],
    ['yes', 'accepted', yesNo('y'), true],
    ['no', 'accepted', yesNo('y'), false],
    ['yes/no as a string', 'type', yesNo('y'), 'yes'],
    ['a rating in scale', 'accepted', rating('r', { scale: 10 }), 10],
    ['a rating of 0', 'too_small', rating('r'), 0],
    ['a rating over the scale', 'too_large', rating('r', { scale: 5 }), 6],
    ['a rating over the default scale', 'too_large', without(rating('r'), 'scale'), 6],
    ['a fractional rating', 'type', rating('r'), 2.5],
    ['a date', 'accepted', date('d'), '2024-02-29'],
    ['a date that does not exist', 'invalid_date', date('d'), '2023-02-29'],
    ['a date in another format', 'invalid_date', date('d'), '29/02/2024'],
    ['a date before min_date', 'too_small', date('d', { min_date: '2025-01-01' }), '2024-12-31'],
    ['a date after max_date', 'too_large', date('d', { max_date: '2025-01-01' }), '2025-01-02'],
    ['a date on the bounds', 'accepted', date('d', { min_date: '2025-01-01', max_date: '2025-01-01' }), '2025-01-01'],
    ['a date as a number', 'type', date('d'), 20250101],
    ['an https URL', 'accepted', website('w'), 'https://acme.example/pricing?x=1'],
    ['an http URL', 'accepted', website('w'), 'http://acme.example'],
    ['an ftp URL', 'invalid_url', website('w'), 'ftp://acme.example'],
    ['a bare domain', 'invalid_url', website('w'), 'acme.example'],
    ['a javascript URL', 'invalid_url', website('w'), 'javascript:alert(1)'],
    ['a URL with surrounding spaces', 'invalid_url', website('w'), ' https://acme.example '],
    ['consent given', 'accepted', consent('c', { required: true }), true],
    ['consent as a string', 'type', consent('c'), 'yes'],
  ])('when the answer is %s, then %s', (_, expected, field, value) => {
    expect(answerCode(field, value) ?? 'accepted').toBe(expected);
  });

  it('when an answer is wrong, then the issue has location body, a pointer into answers, a message and the field ref', () => {
    const [issue] = validateAnswers(single(number('budget', { maximum: 10 })), { budget: 11 }, {}, 'completed').issues;
    expect(issue).toEqual({
      location: 'body',
      pointer: '/answers/budget',
      code: 'too_large',
      message: expect.stringContaining('10'),
      field: 'budget',
    });
  });
});

describe('validateAnswers: required fields and status', () => {
  const definition = form([
    step('a', shortText('name', { required: true }), multipleChoice('needs', ['x'], { required: true }), yesNo('ok')),
  ]);

  it('when a completed submission lacks a required answer, then required', () => {
    expect(codes(definition, { needs: ['x'] })).toEqual(['required /answers/name']);
  });

  it('when a required answer is empty, then it counts as missing', () => {
    expect(codes(definition, { name: '', needs: [] })).toEqual(['required /answers/name', 'required /answers/needs']);
  });

  it('when a partial submission lacks required answers, then that is accepted', () => {
    expect(codes(definition, {}, {}, 'partial')).toEqual([]);
  });

  it('when a partial submission has a wrong answer, then it is still reported', () => {
    expect(codes(definition, { ok: 'yes' }, {}, 'partial')).toEqual(['type /answers/ok']);
  });

  it('when a required consent is false on completion, then consent_required; on a partial submission, then accepted', () => {
    const withConsent = single(consent('terms', { required: true }));
    expect(codes(withConsent, { terms: false })).toEqual(['consent_required /answers/terms']);
    expect(codes(withConsent, { terms: false }, {}, 'partial')).toEqual([]);
    expect(codes(single(consent('terms')), { terms: false })).toEqual([]);
  });

  it('when a required field is on a step the logic skips, then it is not required', () => {
    const branching = form(
      [step('a', singleChoice('size', ['s', 'l'])), step('b', shortText('team', { required: true })), step('c', shortText('name'))],
      { logic: [jump('small', 'a', { field: 'size', op: 'equals', value: 's' }, 'c')] },
    );
    expect(codes(branching, { size: 's' })).toEqual([]);
    expect(codes(branching, { size: 'l' })).toEqual(['required /answers/team']);
  });

  it('when a stored field lacks `required`, then it is optional', () => {
    expect(codes(single(without(shortText('name'), 'required')), {})).toEqual([]);
  });
});

describe('validateAnswers: keys and the path', () => {
  const definition = form(
    [step('intro', singleChoice('size', ['small', 'large']), hidden('utm')), step('team', number('seats')), step('contact', email('mail'))],
    { logic: [jump('small', 'intro', { field: 'size', op: 'equals', value: 'small' }, 'contact')] },
  );

  it('when answers follow the path, then visitedSteps is the path and there are no issues', () => {
    expect(validateAnswers(definition, { size: 'small', mail: 'a@b.co' }, { utm: 'ads' }, 'completed')).toEqual({
      visitedSteps: ['intro', 'contact'],
      issues: [],
    });
  });

  it('when an answer belongs to a skipped step, then not_visited', () => {
    expect(codes(definition, { size: 'small', seats: 5 })).toEqual(['not_visited /answers/seats']);
  });

  it('when a skipped step has an empty answer, then it is ignored', () => {
    expect(codes(definition, { size: 'small', seats: '' as unknown })).toEqual([]);
  });

  it('when an answer names no field, then unknown_field', () => {
    expect(codes(definition, { size: 'large', zeta: 1, alpha: 2 })).toEqual([
      'unknown_field /answers/alpha',
      'unknown_field /answers/zeta',
    ]);
  });

  it('when a hidden field is sent in answers, then unknown_field at /answers', () => {
    expect(codes(definition, { size: 'large', utm: 'ads' })).toEqual(['unknown_field /answers/utm']);
  });

  it('when a hidden key is not a hidden field, then unknown_field at /hidden', () => {
    expect(codes(definition, { size: 'large' }, { size: 'large', nope: 'x' })).toEqual([
      'unknown_field /hidden/size',
      'unknown_field /hidden/nope',
    ]);
  });

  it('when a hidden value is not a string, then type at /hidden', () => {
    expect(codes(definition, {}, { utm: 5 })).toEqual(['type /hidden/utm']);
  });

  it('when a key contains / or ~, then the pointer escapes it (RFC 6901)', () => {
    expect(codes(definition, { 'a/b~c': 1 })).toEqual(['unknown_field /answers/a~1b~0c']);
  });

  it('when a key is a name on Object.prototype, then it is an unknown field, not a crash', () => {
    expect(codes(definition, JSON.parse('{"constructor": 1, "__proto__": 2}') as Answers)).toEqual([
      'unknown_field /answers/__proto__',
      'unknown_field /answers/constructor',
    ]);
  });

  it('when many answers are wrong, then every field gets its issue, in form order', () => {
    expect(codes(definition, { size: 'tiny', seats: 'ten', mail: 'nope' })).toEqual([
      'unknown_option /answers/size',
      'type /answers/seats',
      'invalid_email /answers/mail',
    ]);
  });

  it('when the key order changes, then the issues do not', () => {
    expect(codes(definition, { b: 1, size: 'small', a: 2, seats: 1 })).toEqual(codes(definition, { seats: 1, a: 2, size: 'small', b: 1 }));
  });
});

describe('validateAnswers: visited steps of partial submissions', () => {
  const definition = form([step('a', shortText('x')), step('b', shortText('y')), step('c', shortText('z')), step('d')]);

  it('when a partial submission stops on a step, then visitedSteps ends at the last step with an answer', () => {
    expect(validateAnswers(definition, { x: '1', y: '2' }, {}, 'partial').visitedSteps).toEqual(['a', 'b']);
  });

  it('when a partial submission has no answers, then visitedSteps is the first step', () => {
    expect(validateAnswers(definition, {}, {}, 'partial').visitedSteps).toEqual(['a']);
  });

  it('when a submission is completed, then visitedSteps is the whole path', () => {
    expect(validateAnswers(definition, { x: '1' }, {}, 'completed').visitedSteps).toEqual(['a', 'b', 'c', 'd']);
  });

  it('when logic ends the form, then a completed submission stops there', () => {
    const ending = { ...definition, logic: [endForm('stop', 'b', { field: 'y', op: 'equals', value: 'stop' })] };
    expect(validateAnswers(ending, { y: 'stop' }, {}, 'completed').visitedSteps).toEqual(['a', 'b']);
  });
});
