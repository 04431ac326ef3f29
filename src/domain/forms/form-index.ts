/**
 * Lookups over a form's steps and fields. When a definition repeats a step id or a field ref (which
 * validation rejects), the first occurrence wins, so every consumer resolves names the same way.
 */
import type { Field, Step } from '../schema-types.js';

export interface FieldLocation {
  field: Field;
  stepIndex: number;
  fieldIndex: number;
}

export function indexStepsById(steps: readonly Step[]): Map<string, number> {
  const byId = new Map<string, number>();
  steps.forEach((step, index) => {
    if (!byId.has(step.id)) byId.set(step.id, index);
  });
  return byId;
}

/** Every field by ref, in form order (steps, then fields). */
export function locateFields(steps: readonly Step[]): Map<string, FieldLocation> {
  const byRef = new Map<string, FieldLocation>();
  steps.forEach((step, stepIndex) => {
    step.fields.forEach((field, fieldIndex) => {
      if (!byRef.has(field.ref)) byRef.set(field.ref, { field, stepIndex, fieldIndex });
    });
  });
  return byRef;
}

export function indexFieldsByRef(steps: readonly Step[]): Map<string, Field> {
  return new Map([...locateFields(steps)].map(([ref, location]) => [ref, location.field]));
}
