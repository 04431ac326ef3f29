/**
 * Small builders for form definitions in tests. Fields get the schema's defaults (as the generated types
 * expect) unless a test overrides them; tests about missing defaults delete them explicitly.
 */
import type { Schema } from '../../src/contract.js';
import type { Condition, Field, FormDefinition, LogicRule, Step } from '../../src/domain/schema-types.js';

type Extra<T> = Partial<Omit<T, 'type' | 'ref'>>;

const base = { required: false } as const;

export const shortText = (ref: string, extra: Extra<Schema<'ShortTextField'>> = {}): Schema<'ShortTextField'> => ({
  type: 'short_text',
  ref,
  label: ref,
  ...base,
  max_length: 255,
  ...extra,
});
export const longText = (ref: string, extra: Extra<Schema<'LongTextField'>> = {}): Schema<'LongTextField'> => ({
  type: 'long_text',
  ref,
  label: ref,
  ...base,
  max_length: 5000,
  ...extra,
});
export const email = (ref: string, extra: Extra<Schema<'EmailField'>> = {}): Schema<'EmailField'> => ({
  type: 'email',
  ref,
  label: ref,
  ...base,
  ...extra,
});
export const phone = (ref: string, extra: Extra<Schema<'PhoneField'>> = {}): Schema<'PhoneField'> => ({
  type: 'phone',
  ref,
  label: ref,
  ...base,
  ...extra,
});
export const website = (ref: string, extra: Extra<Schema<'WebsiteField'>> = {}): Schema<'WebsiteField'> => ({
  type: 'website',
  ref,
  label: ref,
  ...base,
  ...extra,
});
export const number = (ref: string, extra: Extra<Schema<'NumberField'>> = {}): Schema<'NumberField'> => ({
  type: 'number',
  ref,
  label: ref,
  ...base,
  integer: false,
  ...extra,
});
export const rating = (ref: string, extra: Extra<Schema<'RatingField'>> = {}): Schema<'RatingField'> => ({
  type: 'rating',
  ref,
  label: ref,
  ...base,
  scale: 5,
  ...extra,
});
export const date = (ref: string, extra: Extra<Schema<'DateField'>> = {}): Schema<'DateField'> => ({
  type: 'date',
  ref,
  label: ref,
  ...base,
  ...extra,
});
export const yesNo = (ref: string, extra: Extra<Schema<'YesNoField'>> = {}): Schema<'YesNoField'> => ({
  type: 'yes_no',
  ref,
  label: ref,
  ...base,
  ...extra,
});
export const consent = (ref: string, extra: Extra<Schema<'ConsentField'>> = {}): Schema<'ConsentField'> => ({
  type: 'consent',
  ref,
  label: ref,
  ...base,
  ...extra,
});
export const hidden = (ref: string): Schema<'HiddenField'> => ({ type: 'hidden', ref, label: ref });

/** An option; `value:score` strings are a shorthand for scored options. */
export const option = (spec: string): Schema<'ChoiceOption'> => {
  const [value = spec, score] = spec.split(':');
  return { value, label: value, score: score === undefined ? 0 : Number(score) };
};
export const singleChoice = (
  ref: string,
  options: string[],
  extra: Extra<Schema<'SingleChoiceField'>> = {},
): Schema<'SingleChoiceField'> => ({
  type: 'single_choice',
  ref,
  label: ref,
  ...base,
  options: options.map(option),
  ...extra,
});
export const multipleChoice = (
  ref: string,
  options: string[],
  extra: Extra<Schema<'MultipleChoiceField'>> = {},
): Schema<'MultipleChoiceField'> => ({
  type: 'multiple_choice',
  ref,
  label: ref,
  ...base,
  options: options.map(option),
  ...extra,
});

export const step = (id: string, ...fields: Field[]): Step => ({ id, title: id, fields });

export const jump = (id: string, from: string, when: Condition, to: string): LogicRule => ({
  id,
  from_step: from,
  when,
  then: { action: 'jump_to_step', step: to },
});
export const endForm = (id: string, from: string, when: Condition): LogicRule => ({
  id,
  from_step: from,
  when,
  then: { action: 'end_form' },
});

export function form(steps: Step[], more: Partial<FormDefinition> = {}): FormDefinition {
  return { steps, logic: [], scoring: { rules: [], grades: [] }, ...more };
}

/** Deletes a property the generated types call non-optional (schema defaults), as a stored form may lack it. */
export function without<T extends object>(value: T, key: keyof T): T {
  const copy = { ...value };
  delete copy[key];
  return copy;
}
