/**
 * How each field type's answers behave in conditions: what JSON value they hold and which operators make
 * sense on them. Validation (which operators a rule may use) and evaluation (how values compare) both read
 * this table, so the two can never disagree.
 */
import type { FieldCondition, FieldType } from '../schema-types.js';

/** `option` is one option value, `options` an array of them; `date` is a `YYYY-MM-DD` string. */
export type AnswerKind = 'text' | 'option' | 'options' | 'number' | 'date' | 'boolean';

export type ConditionOperator = FieldCondition['op'];

// A Record over every field type: adding a type to the spec fails compilation until it is classified here.
const KIND_BY_FIELD_TYPE: Record<FieldType, AnswerKind> = {
  short_text: 'text',
  long_text: 'text',
  email: 'text',
  phone: 'text',
  website: 'text',
  hidden: 'text',
  single_choice: 'option',
  multiple_choice: 'options',
  number: 'number',
  rating: 'number',
  date: 'date',
  yes_no: 'boolean',
  consent: 'boolean',
};

const PRESENCE: readonly ConditionOperator[] = ['is_answered', 'is_not_answered'];
const EQUALITY: readonly ConditionOperator[] = ['equals', 'not_equals'];
const ORDER: readonly ConditionOperator[] = ['gt', 'gte', 'lt', 'lte'];

const OPERATORS_BY_KIND: Record<AnswerKind, ReadonlySet<ConditionOperator>> = {
  text: new Set([...PRESENCE, ...EQUALITY, 'contains']),
  option: new Set([...PRESENCE, ...EQUALITY]),
  options: new Set([...PRESENCE, ...EQUALITY, 'contains']),
  number: new Set([...PRESENCE, ...EQUALITY, ...ORDER]),
  date: new Set([...PRESENCE, ...EQUALITY, ...ORDER]),
  boolean: new Set([...PRESENCE, ...EQUALITY]),
};

export function answerKindOf(type: FieldType): AnswerKind {
  return KIND_BY_FIELD_TYPE[type];
}

export function operatorAppliesTo(op: ConditionOperator, type: FieldType): boolean {
  return OPERATORS_BY_KIND[answerKindOf(type)].has(op);
}

/** Field types whose answers an operator can test, for error messages. */
export function fieldTypesAccepting(op: ConditionOperator): FieldType[] {
  return (Object.keys(KIND_BY_FIELD_TYPE) as FieldType[]).filter((type) => operatorAppliesTo(op, type));
}
