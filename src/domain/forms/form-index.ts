/**
 * Lookups over a form's steps and fields. When a definition repeats a step id or a field ref (which
 * validation rejects), the first occurrence wins, so every consumer resolves names the same way.
 *
 * A stored form version's definition is parsed once and frozen (the store's row mappers), and every submission
 * to it walks the same steps: the lookups of a frozen step list are built once and kept beside it (a WeakMap, so
 * they go when the definition does). A list that can still change is indexed afresh each time.
 */
import type { Field, Step } from '../schema-types.js';

export interface FieldLocation {
  field: Field;
  stepIndex: number;
  fieldIndex: number;
}

/** What `build` makes of a part of a definition: kept beside it when it is frozen, built afresh when it can change. */
export function keptFor<K extends object, T>(kept: WeakMap<K, T>, part: K, build: (part: K) => T): T {
  if (!Object.isFrozen(part)) return build(part);
  let index = kept.get(part);
  if (index === undefined) {
    index = build(part);
    kept.set(part, index);
  }
  return index;
}

const stepIndexes = new WeakMap<readonly Step[], ReadonlyMap<string, number>>();
const fieldLocations = new WeakMap<readonly Step[], ReadonlyMap<string, FieldLocation>>();
const fieldsByRef = new WeakMap<readonly Step[], ReadonlyMap<string, Field>>();

export const indexStepsById = (steps: readonly Step[]): ReadonlyMap<string, number> => keptFor(stepIndexes, steps, buildStepIndex);

/** Every field by ref, in form order (steps, then fields). */
export const locateFields = (steps: readonly Step[]): ReadonlyMap<string, FieldLocation> =>
  keptFor(fieldLocations, steps, buildFieldLocations);

function buildStepIndex(steps: readonly Step[]): Map<string, number> {
  const byId = new Map<string, number>();
  steps.forEach((step, index) => {
    if (!byId.has(step.id)) byId.set(step.id, index);
  });
  return byId;
}

function buildFieldLocations(steps: readonly Step[]): Map<string, FieldLocation> {
  const byRef = new Map<string, FieldLocation>();
  steps.forEach((step, stepIndex) => {
    step.fields.forEach((field, fieldIndex) => {
      if (!byRef.has(field.ref)) byRef.set(field.ref, { field, stepIndex, fieldIndex });
    });
  });
  return byRef;
}

/** Every field by ref, in form order. */
export const indexFieldsByRef = (steps: readonly Step[]): ReadonlyMap<string, Field> =>
  keptFor(fieldsByRef, steps, (list) => new Map([...locateFields(list)].map(([ref, location]) => [ref, location.field])));
