/**
 * The contract's field types as the builder offers them. The record is keyed by the generated union, so a type added
 * to the contract is a compile error here until the builder names it.
 */
import type { ChoiceOption, Field, FieldType } from './draft.js';

export const fieldTypeLabels: Record<FieldType, string> = {
  short_text: 'Short text',
  long_text: 'Long text',
  email: 'Email',
  phone: 'Phone',
  number: 'Number',
  single_choice: 'Single choice',
  multiple_choice: 'Multiple choice',
  yes_no: 'Yes / no',
  rating: 'Rating',
  date: 'Date',
  website: 'Website',
  consent: 'Consent',
  hidden: 'Hidden value',
};

export const fieldTypes = Object.keys(fieldTypeLabels) as FieldType[];

export type ChoiceField = Extract<Field, { options: ChoiceOption[] }>;
export const isChoiceField = (field: Field): field is ChoiceField => field.type === 'single_choice' || field.type === 'multiple_choice';

/**
 * The field as another type: what every type has (key, question, help text, required) is kept, a choice field keeps
 * its options when it stays a choice field, and the previous type's own settings go.
 */
export function fieldOfType(field: Field, type: FieldType): Field {
  const kept: Record<string, unknown> = { type, ref: field.ref, label: field.label };
  if (field.description !== undefined) kept.description = field.description;
  if (type !== 'hidden' && field.type !== 'hidden' && field.required !== undefined) kept.required = field.required;
  if (type === 'single_choice' || type === 'multiple_choice') kept.options = isChoiceField(field) ? field.options : [newOption([])];
  // The generated types mark members with a schema default as present; the API fills them in when they are left out.
  return kept as unknown as Field;
}

export function newField(ref: string): Field {
  return { type: 'short_text', ref, label: '' } as unknown as Field;
}

export function newOption(options: readonly ChoiceOption[]): ChoiceOption {
  const taken = new Set(options.map((option) => option.value));
  let n = options.length + 1;
  while (taken.has(`option_${n}`)) n += 1;
  return { value: `option_${n}`, label: '' } as ChoiceOption;
}

/**
 * A key made from a label (`Company size` → `company_size`), for a field's ref or an option's value while the person
 * has not chosen one: lower case, words joined by `_`, starting with a letter. Empty when the label has no letter.
 */
export function keyFrom(label: string): string {
  const words = label
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  const key = words.replace(/ /g, '_').replace(/^[0-9_]+/, '');
  return key.slice(0, 64).replace(/_+$/, '');
}

/** Whether `key` is still what the builder chose (a placeholder, or made from the previous label). */
export const followsLabel = (key: string, previousLabel: string, placeholder: RegExp): boolean =>
  placeholder.test(key) || (key !== '' && key === keyFrom(previousLabel));
