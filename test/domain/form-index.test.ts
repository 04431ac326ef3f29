/**
 * The lookups over a form's steps are kept beside a frozen step list (a stored version's, shared by every
 * submission to it) and built afresh for one that can still change; either way they answer the same.
 */
import { describe, expect, it } from 'vitest';
import { indexFieldsByRef, indexStepsById, locateFields } from '../../src/domain/forms/form-index.js';
import { walkPath } from '../../src/domain/logic/walk-path.js';
import type { FormDefinition, Step } from '../../src/domain/schema-types.js';
import { deepFreeze } from '../../src/frozen.js';

const steps = (): Step[] =>
  [
    { id: 'one', title: 'One', fields: [{ ref: 'name', type: 'short_text', label: 'Name', required: true }] },
    { id: 'two', title: 'Two', fields: [{ ref: 'name', type: 'email', label: 'Later duplicate', required: false }] },
  ] as unknown as Step[];

describe('form lookups', () => {
  it('when the step list is frozen, then each lookup is built once and shared', () => {
    const frozen = deepFreeze(steps());
    expect(indexFieldsByRef(frozen)).toBe(indexFieldsByRef(frozen));
    expect(indexStepsById(frozen)).toBe(indexStepsById(frozen));
    expect(locateFields(frozen)).toBe(locateFields(frozen));
  });

  it('when the step list can still change, then each lookup is built afresh and sees the change', () => {
    const open = steps();
    const before = indexFieldsByRef(open);
    expect(indexFieldsByRef(open)).not.toBe(before);
    open[0]!.fields[0]!.ref = 'renamed';
    expect([...indexFieldsByRef(open).keys()]).toEqual(['renamed', 'name']);
  });

  it('when a ref repeats, then the first field wins, frozen or not', () => {
    for (const list of [steps(), deepFreeze(steps())]) expect(indexFieldsByRef(list).get('name')?.type).toBe('short_text');
  });

  it('when the rules are frozen, then each definition walks its own rules, the first that holds deciding', () => {
    const three = [...steps(), { id: 'three', title: 'Three', fields: [] }] as unknown as Step[];
    const jump = {
      id: 'jump',
      from_step: 'one',
      when: { field: 'name', op: 'equals', value: 'x' },
      then: { action: 'jump_to_step', step: 'three' },
    };
    const end = { id: 'end', from_step: 'one', when: { field: 'name', op: 'equals', value: 'x' }, then: { action: 'end_form' } };
    const jumpFirst = { steps: three, logic: [jump, end] } as unknown as FormDefinition;
    const endFirst = { steps: three, logic: [end, jump] } as unknown as FormDefinition;
    const frozenJumpFirst = deepFreeze(structuredClone(jumpFirst));
    const frozenEndFirst = deepFreeze(structuredClone(endFirst));
    for (let round = 0; round < 2; round++) {
      expect(walkPath(frozenJumpFirst, { name: 'x' })).toEqual(['one', 'three']);
      expect(walkPath(frozenEndFirst, { name: 'x' })).toEqual(['one']);
      expect(walkPath(frozenJumpFirst, { name: 'y' })).toEqual(['one', 'two', 'three']);
    }
    expect(walkPath(jumpFirst, { name: 'x' })).toEqual(['one', 'three']);
    expect(walkPath(endFirst, { name: 'x' })).toEqual(['one']);
  });
});
