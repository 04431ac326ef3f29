/**
 * Properties the schema gives a `default`. Request validation does not fill defaults inside `oneOf`
 * branches (every field type is one), so a definition may arrive without them; the domain reads each
 * defaulted property through these accessors. test/domain/field-defaults.test.ts checks the numbers here
 * against the `default`s in openapi/components/schemas, so the spec stays the source of truth.
 */
import type { ChoiceOption, Field, NumberField, RatingField, TextField } from '../schema-types.js';

export const SCHEMA_DEFAULTS = {
  short_text: { max_length: 255 },
  long_text: { max_length: 5000 },
  rating: { scale: 5 },
} as const;

export function isRequired(field: Field): boolean {
  // Hidden fields have no `required`: their value is passed, never asked.
  return field.type !== 'hidden' && field.required === true;
}

export function maxLengthOf(field: TextField): number {
  return field.max_length ?? SCHEMA_DEFAULTS[field.type].max_length;
}

export function ratingScaleOf(field: RatingField): number {
  return field.scale ?? SCHEMA_DEFAULTS.rating.scale;
}

export function acceptsOnlyIntegers(field: NumberField): boolean {
  return field.integer === true;
}

export function optionScoreOf(option: ChoiceOption): number {
  return option.score ?? 0;
}
