import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { assertValidFormDefinition, validateFormDefinition } from '../../src/domain/forms/validate-definition.js';
import type { Condition, FormDefinition } from '../../src/domain/schema-types.js';
import {
  date,
  email,
  endForm,
  form,
  hidden,
  jump,
  longText,
  multipleChoice,
  number,
  rating,
  shortText,
  singleChoice,
  step,
  without,
  yesNo,
} from './fixtures.js';

const codesAt = (issues: { pointer: string; code: string }[]) => issues.map(({ pointer, code }) => `${code} ${pointer}`);

const definitionIssuesOf = (definition: FormDefinition) => codesAt(validateFormDefinition(definition).definitionIssues);
const logicIssuesOf = (definition: FormDefinition) => codesAt(validateFormDefinition(definition).logicIssues);

/** A three-step form most logic tests branch over. */
const funnel = (...logic: FormDefinition['logic']) =>
  form(
    [
      step('about', singleChoice('size', ['small', 'large']), number('budget'), shortText('name'), multipleChoice('needs', ['crm', 'api'])),
      step('details', date('start'), rating('fit'), yesNo('urgent'), hidden('utm')),
      step('contact', shortText('phone_note')),
    ],
    { logic },
  );

describe('validateFormDefinition: the definition', () => {
  it('when the definition is consistent, then there are no issues', () => {
    expect(validateFormDefinition(funnel(jump('skip', 'about', { field: 'size', op: 'equals', value: 'small' }, 'contact')))).toEqual({
      definitionIssues: [],
      logicIssues: [],
    });
  });

  it('when the form is empty, then there are no issues', () => {
    expect(validateFormDefinition(form([]))).toEqual({ definitionIssues: [], logicIssues: [] });
  });

  it('when two steps share an id, then duplicate_step_id points at the second', () => {
    expect(definitionIssuesOf(form([step('a'), step('b'), step('a')]))).toEqual(['duplicate_step_id /steps/2/id']);
  });

  it('when two fields on different steps share a ref, then duplicate_ref points at the later one', () => {
    expect(definitionIssuesOf(form([step('a', shortText('name')), step('b', email('x'), number('name'))]))).toEqual([
      'duplicate_ref /steps/1/fields/1/ref',
    ]);
  });

  it('when a choice field repeats an option value, then duplicate_option points at the repeat', () => {
    expect(definitionIssuesOf(form([step('a', singleChoice('size', ['s', 'm', 's']), multipleChoice('tags', ['x', 'x']))]))).toEqual([
      'duplicate_option /steps/0/fields/0/options/2/value',
      'duplicate_option /steps/0/fields/1/options/1/value',
    ]);
  });

  it('when min_length is above max_length, then invalid_range', () => {
    expect(
      definitionIssuesOf(
        form([step('a', shortText('t', { min_length: 10, max_length: 5 }), longText('l', { min_length: 5, max_length: 5 }))]),
      ),
    ).toEqual(['invalid_range /steps/0/fields/0/min_length']);
  });

  it('when max_length is omitted, then min_length is held against the schema default', () => {
    const field = without(shortText('t', { min_length: 300 }), 'max_length');
    expect(definitionIssuesOf(form([step('a', field)]))).toEqual(['invalid_range /steps/0/fields/0/min_length']);
    expect(definitionIssuesOf(form([step('a', without(shortText('t', { min_length: 255 }), 'max_length'))]))).toEqual([]);
  });

  it('when minimum is above maximum, then invalid_range', () => {
    expect(definitionIssuesOf(form([step('a', number('n', { minimum: 3, maximum: 2 }), number('m', { minimum: 2, maximum: 2 }))]))).toEqual(
      ['invalid_range /steps/0/fields/0/minimum'],
    );
  });

  it('when min_selections is above max_selections or the number of options, then invalid_range', () => {
    const definition = form([
      step(
        'a',
        multipleChoice('x', ['a', 'b', 'c'], { min_selections: 3, max_selections: 2 }),
        multipleChoice('y', ['a', 'b'], { min_selections: 3 }),
        multipleChoice('z', ['a', 'b'], { min_selections: 2, max_selections: 5 }),
      ),
    ]);
    expect(definitionIssuesOf(definition)).toEqual([
      'invalid_range /steps/0/fields/0/min_selections',
      'invalid_range /steps/0/fields/1/min_selections',
    ]);
  });

  it('when min_date is after max_date, then invalid_range; when a bound is not a calendar date, then invalid_date', () => {
    const definition = form([
      step(
        'a',
        date('d', { min_date: '2025-02-01', max_date: '2025-01-31' }),
        date('e', { min_date: '2025-02-30' }),
        date('f', { min_date: '2025-01-01', max_date: '2025-01-01' }),
      ),
    ]);
    expect(definitionIssuesOf(definition)).toEqual(['invalid_range /steps/0/fields/0/min_date', 'invalid_date /steps/0/fields/1/min_date']);
  });
});

describe('validateFormDefinition: scoring', () => {
  const scored = (scoring: FormDefinition['scoring']) => ({ ...funnel(), scoring });

  it('when a scoring rule names an unknown field, then unknown_field in the definition issues', () => {
    const issues = validateFormDefinition(
      scored({ rules: [{ id: 'r', when: { field: 'nope', op: 'is_answered' }, points: 5 }], grades: [] }),
    );
    expect(codesAt(issues.definitionIssues)).toEqual(['unknown_field /scoring/rules/0/when/field']);
    expect(issues.logicIssues).toEqual([]);
  });

  it('when a scoring rule names an option the field does not have, then unknown_option', () => {
    expect(
      definitionIssuesOf(
        scored({ rules: [{ id: 'r', when: { any: [{ field: 'needs', op: 'contains', value: 'erp' }] }, points: 5 }], grades: [] }),
      ),
    ).toEqual(['unknown_option /scoring/rules/0/when/any/0/value']);
  });

  it('when a scoring rule uses an operator the field type lacks, then operator_mismatch', () => {
    expect(
      definitionIssuesOf(scored({ rules: [{ id: 'r', when: { field: 'size', op: 'gt', value: 3 }, points: 5 }], grades: [] })),
    ).toEqual(['operator_mismatch /scoring/rules/0/when/op']);
  });

  it('when a scoring rule refers to a later step, then that is fine: scoring sees the whole submission', () => {
    expect(
      definitionIssuesOf(scored({ rules: [{ id: 'r', when: { field: 'phone_note', op: 'is_answered' }, points: 1 }], grades: [] })),
    ).toEqual([]);
  });

  it('when two scoring rules share an id, then duplicate_rule_id', () => {
    const when: Condition = { field: 'urgent', op: 'equals', value: true };
    expect(
      definitionIssuesOf(
        scored({
          rules: [
            { id: 'r', when, points: 1 },
            { id: 'r', when, points: 2 },
          ],
          grades: [],
        }),
      ),
    ).toEqual(['duplicate_rule_id /scoring/rules/1/id']);
  });

  it('when two grades share a label or a min_score, then duplicate_grade', () => {
    const grades = [
      { label: 'A', min_score: 50 },
      { label: 'A', min_score: 10 },
      { label: 'B', min_score: 50 },
      { label: 'C', min_score: 0 },
    ];
    expect(definitionIssuesOf(scored({ rules: [], grades }))).toEqual([
      'duplicate_grade /scoring/grades/1/label',
      'duplicate_grade /scoring/grades/2/min_score',
    ]);
  });
});

describe('validateFormDefinition: logic', () => {
  it('when a rule starts from an unknown step, then unknown_step at from_step', () => {
    expect(logicIssuesOf(funnel(endForm('r', 'nowhere', { field: 'size', op: 'is_answered' })))).toEqual([
      'unknown_step /logic/0/from_step',
    ]);
  });

  it('when a rule jumps to an unknown step, then unknown_step at then/step', () => {
    expect(logicIssuesOf(funnel(jump('r', 'about', { field: 'size', op: 'is_answered' }, 'nowhere')))).toEqual([
      'unknown_step /logic/0/then/step',
    ]);
  });

  it('when a rule jumps to its own step, then logic_cycle', () => {
    expect(logicIssuesOf(funnel(jump('r', 'details', { field: 'urgent', op: 'equals', value: true }, 'details')))).toEqual([
      'logic_cycle /logic/0/then/step',
    ]);
  });

  it('when a rule jumps to an earlier step, then backward_jump', () => {
    expect(logicIssuesOf(funnel(jump('r', 'contact', { field: 'urgent', op: 'equals', value: true }, 'about')))).toEqual([
      'backward_jump /logic/0/then/step',
    ]);
  });

  it('when a condition names an unknown field, then unknown_field', () => {
    expect(
      logicIssuesOf(
        funnel(
          endForm('r', 'about', {
            all: [
              { field: 'size', op: 'is_answered' },
              { field: 'ghost', op: 'is_answered' },
            ],
          }),
        ),
      ),
    ).toEqual(['unknown_field /logic/0/when/all/1/field']);
  });

  it('when a condition names a field of a later step than from_step, then forward_reference', () => {
    expect(logicIssuesOf(funnel(endForm('r', 'about', { field: 'urgent', op: 'equals', value: true })))).toEqual([
      'forward_reference /logic/0/when/field',
    ]);
  });

  it('when a condition names a field of the same or an earlier step, or a hidden field anywhere, then it is accepted', () => {
    expect(
      logicIssuesOf(
        funnel(
          endForm('same', 'details', { field: 'urgent', op: 'equals', value: true }),
          endForm('earlier', 'contact', { field: 'size', op: 'equals', value: 'large' }),
          endForm('hidden', 'about', { field: 'utm', op: 'contains', value: 'ads' }),
        ),
      ),
    ).toEqual([]);
  });

  it('when a range operator is used on a field that has no order, then operator_mismatch', () => {
    expect(
      logicIssuesOf(
        funnel(
          endForm('a', 'about', { field: 'name', op: 'gt', value: 3 }),
          endForm('b', 'about', { field: 'size', op: 'lte', value: 3 }),
          endForm('c', 'details', { field: 'urgent', op: 'gte', value: 1 }),
        ),
      ),
    ).toEqual(['operator_mismatch /logic/0/when/op', 'operator_mismatch /logic/1/when/op', 'operator_mismatch /logic/2/when/op']);
  });

  it('when contains is used on a field that is neither text nor multiple choice, then operator_mismatch', () => {
    expect(
      logicIssuesOf(
        funnel(
          endForm('a', 'about', { field: 'budget', op: 'contains', value: '1' }),
          endForm('b', 'about', { field: 'size', op: 'contains', value: 'small' }),
          endForm('c', 'about', { field: 'name', op: 'contains', value: 'inc' }),
          endForm('d', 'about', { field: 'needs', op: 'contains', value: 'api' }),
        ),
      ),
    ).toEqual(['operator_mismatch /logic/0/when/op', 'operator_mismatch /logic/1/when/op']);
  });

  it('when ordered operators compare number, rating and date fields with fitting values, then they are accepted', () => {
    expect(
      logicIssuesOf(
        funnel(
          endForm('a', 'about', { field: 'budget', op: 'gte', value: 1000 }),
          endForm('b', 'details', { field: 'fit', op: 'lt', value: 3 }),
          endForm('c', 'details', { field: 'start', op: 'gt', value: '2025-06-01' }),
        ),
      ),
    ).toEqual([]);
  });

  it('when a value has the wrong type for the field, then operator_mismatch at value', () => {
    expect(
      logicIssuesOf(
        funnel(
          endForm('a', 'about', { field: 'budget', op: 'equals', value: '1000' }),
          endForm('b', 'details', { field: 'start', op: 'gt', value: 20250601 }),
          endForm('c', 'details', { field: 'urgent', op: 'equals', value: 'yes' }),
          endForm('d', 'about', { field: 'name', op: 'equals', value: 7 }),
          endForm('e', 'about', { field: 'size', op: 'equals', value: true }),
        ),
      ),
    ).toEqual([
      'operator_mismatch /logic/0/when/value',
      'operator_mismatch /logic/1/when/value',
      'operator_mismatch /logic/2/when/value',
      'operator_mismatch /logic/3/when/value',
      'operator_mismatch /logic/4/when/value',
    ]);
  });

  it('when a date value is not a calendar date, then invalid_date', () => {
    expect(logicIssuesOf(funnel(endForm('a', 'details', { field: 'start', op: 'lt', value: '2025-13-01' })))).toEqual([
      'invalid_date /logic/0/when/value',
    ]);
  });

  it('when a choice value is not one of the options, then unknown_option', () => {
    expect(
      logicIssuesOf(
        funnel(
          endForm('a', 'about', { field: 'size', op: 'equals', value: 'medium' }),
          endForm('b', 'about', { field: 'needs', op: 'not_equals', value: 'erp' }),
        ),
      ),
    ).toEqual(['unknown_option /logic/0/when/value', 'unknown_option /logic/1/when/value']);
  });

  it('when two logic rules share an id, then duplicate_rule_id', () => {
    const when: Condition = { field: 'size', op: 'is_answered' };
    expect(logicIssuesOf(funnel(endForm('r', 'about', when), endForm('r', 'details', when)))).toEqual(['duplicate_rule_id /logic/1/id']);
  });

  it('when conditions nest deeper than 5 levels, then condition_too_deep at the first level too deep', () => {
    const leaf: Condition = { field: 'size', op: 'is_answered' };
    const nest = (levels: number): Condition => (levels === 1 ? leaf : { all: [nest(levels - 1)] });
    expect(logicIssuesOf(funnel(endForm('ok', 'about', nest(5))))).toEqual([]);
    expect(logicIssuesOf(funnel(endForm('deep', 'about', nest(6))))).toEqual([
      'condition_too_deep /logic/0/when/all/0/all/0/all/0/all/0/all/0',
    ]);
  });

  it('when several rules are wrong, then every issue is listed', () => {
    const issues = logicIssuesOf(
      funnel(
        jump('a', 'contact', { field: 'ghost', op: 'is_answered' }, 'about'),
        jump('b', 'nowhere', { field: 'size', op: 'gt', value: 1 }, 'elsewhere'),
      ),
    );
    expect(issues).toEqual([
      'unknown_field /logic/0/when/field',
      'backward_jump /logic/0/then/step',
      'unknown_step /logic/1/from_step',
      'operator_mismatch /logic/1/when/op',
      'unknown_step /logic/1/then/step',
    ]);
  });
});

describe('assertValidFormDefinition', () => {
  const thrown = (definition: FormDefinition): AppError => {
    try {
      assertValidFormDefinition(definition);
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    throw new Error('expected an AppError');
  };

  it('when the definition is valid, then it does not throw', () => {
    expect(() => assertValidFormDefinition(funnel())).not.toThrow();
  });

  it('when only the logic is wrong, then 422 invalid_form_logic with the logic issues', () => {
    const error = thrown(funnel(jump('r', 'contact', { field: 'size', op: 'is_answered' }, 'about')));
    expect(error).toMatchObject({ status: 422, type: 'validation_error', code: 'invalid_form_logic' });
    expect(codesAt(error.details?.errors ?? [])).toEqual(['backward_jump /logic/0/then/step']);
  });

  it('when both the definition and the logic are wrong, then 422 invalid_form with the definition issues first', () => {
    const definition = {
      ...funnel(jump('r', 'contact', { field: 'size', op: 'is_answered' }, 'about')),
      steps: [...funnel().steps, step('about')],
    };
    const error = thrown(definition);
    expect(error.code).toBe('invalid_form');
    expect(codesAt(error.details?.errors ?? [])).toEqual(['duplicate_step_id /steps/3/id']);
  });
});
