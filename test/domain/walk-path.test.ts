import { describe, expect, it } from 'vitest';
import { walkPath } from '../../src/domain/logic/walk-path.js';
import type { FormDefinition, LogicRule } from '../../src/domain/schema-types.js';
import { endForm, form, hidden, jump, number, shortText, singleChoice, step, yesNo } from './fixtures.js';

const steps = [
  step('intro', singleChoice('size', ['small', 'large']), hidden('utm')),
  step('budget', number('amount')),
  step('needs', yesNo('urgent')),
  step('contact', shortText('name')),
];
const withLogic = (...logic: LogicRule[]): FormDefinition => form(steps, { logic });

describe('walkPath', () => {
  it('when there are no rules, then every step is visited in order', () => {
    expect(walkPath(withLogic(), {})).toEqual(['intro', 'budget', 'needs', 'contact']);
  });

  it('when the form has no steps, then the path is empty', () => {
    expect(walkPath(form([]), {})).toEqual([]);
  });

  it('when a jump rule matches, then the path continues at its target', () => {
    const definition = withLogic(jump('small', 'intro', { field: 'size', op: 'equals', value: 'small' }, 'contact'));
    expect(walkPath(definition, { size: 'small' })).toEqual(['intro', 'contact']);
  });

  it('when no rule of a step matches, then the next step follows', () => {
    const definition = withLogic(jump('small', 'intro', { field: 'size', op: 'equals', value: 'small' }, 'contact'));
    expect(walkPath(definition, { size: 'large' })).toEqual(['intro', 'budget', 'needs', 'contact']);
  });

  it('when an end_form rule matches, then the path stops after that step', () => {
    const definition = withLogic(endForm('tiny', 'budget', { field: 'amount', op: 'lt', value: 100 }));
    expect(walkPath(definition, { amount: 50 })).toEqual(['intro', 'budget']);
  });

  it('when several rules of a step match, then the first in list order decides', () => {
    const definition = withLogic(
      jump('to-needs', 'intro', { field: 'size', op: 'is_answered' }, 'needs'),
      jump('to-contact', 'intro', { field: 'size', op: 'equals', value: 'small' }, 'contact'),
    );
    expect(walkPath(definition, { size: 'small' })).toEqual(['intro', 'needs', 'contact']);
  });

  it("when rules of other steps come first in the list, then only the current step's rules count", () => {
    const definition = withLogic(
      endForm('later', 'needs', { field: 'size', op: 'is_answered' }),
      jump('now', 'intro', { field: 'size', op: 'is_answered' }, 'needs'),
    );
    expect(walkPath(definition, { size: 'large' })).toEqual(['intro', 'needs']);
  });

  it('when a rule uses a hidden value, then it is known from the first step', () => {
    const definition = withLogic(jump('ads', 'intro', { field: 'utm', op: 'equals', value: 'ads' }, 'contact'));
    expect(walkPath(definition, {}, { utm: 'ads' })).toEqual(['intro', 'contact']);
    // The same value sent as an answer is not a hidden value.
    expect(walkPath(definition, { utm: 'ads' })).toEqual(['intro', 'budget', 'needs', 'contact']);
  });

  it('when an answer belongs to a step the path skipped, then it does not steer later rules', () => {
    const definition = withLogic(
      jump('skip-budget', 'intro', { field: 'size', op: 'equals', value: 'small' }, 'needs'),
      endForm('rich', 'needs', { field: 'amount', op: 'gt', value: 1000 }),
    );
    expect(walkPath(definition, { size: 'small', amount: 5000 })).toEqual(['intro', 'needs', 'contact']);
    expect(walkPath(definition, { size: 'large', amount: 5000 })).toEqual(['intro', 'budget', 'needs']);
  });

  it('when a stored definition jumps backwards or to itself, then the path ends there instead of looping', () => {
    const backwards = withLogic(jump('loop', 'needs', { field: 'size', op: 'is_answered' }, 'intro'));
    expect(walkPath(backwards, { size: 'small' })).toEqual(['intro', 'budget', 'needs']);
    const self = withLogic(jump('self', 'budget', { field: 'size', op: 'is_answered' }, 'budget'));
    expect(walkPath(self, { size: 'small' })).toEqual(['intro', 'budget']);
  });

  it('when a stored definition jumps to an unknown step, then the path ends there', () => {
    const definition = withLogic(jump('gone', 'intro', { field: 'size', op: 'is_answered' }, 'removed'));
    expect(walkPath(definition, { size: 'small' })).toEqual(['intro']);
  });
});
