/**
 * Conditions as the builder edits them: a test of one field's answer, or `all` / `any` of nested conditions (the
 * contract's Condition). Which operators suit which field, and which values they compare with, is the API's to
 * decide (422 `operator_mismatch`); the builder offers values of the field's own kind.
 */
import type { Condition, Field, FieldCondition } from './draft.js';
import { isChoiceField } from './field-types.js';

export type Operator = FieldCondition['op'];

export const operatorLabels: Record<Operator, string> = {
  equals: 'is',
  not_equals: 'is not',
  contains: 'contains',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  is_answered: 'is answered',
  is_not_answered: 'is not answered',
};

export const operators = Object.keys(operatorLabels) as Operator[];
export const comparesValue = (op: Operator): boolean => op !== 'is_answered' && op !== 'is_not_answered';

export type ConditionKind = 'field' | 'all' | 'any';
export const kindOf = (condition: Condition): ConditionKind => ('all' in condition ? 'all' : 'any' in condition ? 'any' : 'field');
export const childrenOf = (condition: Condition): Condition[] =>
  'all' in condition ? condition.all : 'any' in condition ? condition.any : [condition];

/** A value of the field's kind to start a comparison with: its first option, yes, zero, or empty text. */
export function startingValue(field: Field | undefined): string | number | boolean {
  if (field === undefined) return '';
  if (isChoiceField(field)) return field.options[0]?.value ?? '';
  if (field.type === 'yes_no' || field.type === 'consent') return true;
  if (field.type === 'number') return 0;
  if (field.type === 'rating') return 1;
  return '';
}

/** A condition to start from: on the last field asked, "is" its first option for a choice, else "is answered". */
export function newCondition(fields: readonly Field[]): Condition {
  const field = [...fields].reverse().find((candidate) => candidate.type !== 'hidden') ?? fields[0];
  if (field === undefined) return { field: '', op: 'is_answered' } as Condition;
  if (isChoiceField(field) || field.type === 'yes_no' || field.type === 'consent')
    return { field: field.ref, op: 'equals', value: startingValue(field) } as Condition;
  return { field: field.ref, op: 'is_answered' } as Condition;
}

/** The condition with another operator: the value is kept while the new operator compares with one. */
export function withOperator(condition: FieldCondition, op: Operator, field: Field | undefined): Condition {
  if (!comparesValue(op)) return { field: condition.field, op } as Condition;
  const value = 'value' in condition ? condition.value : startingValue(field);
  return { field: condition.field, op, value } as Condition;
}

/** The condition on another field: the operator is kept, the value starts again in the new field's kind. */
export function withField(condition: FieldCondition, ref: string, field: Field | undefined): Condition {
  if (!comparesValue(condition.op)) return { field: ref, op: condition.op } as Condition;
  return { field: ref, op: condition.op, value: startingValue(field) } as Condition;
}

/** The condition as another kind: a test becomes the first of a group, a group's first test stands alone. */
export function withKind(condition: Condition, kind: ConditionKind, fields: readonly Field[]): Condition {
  const children = childrenOf(condition);
  if (kind === 'all') return { all: children };
  if (kind === 'any') return { any: children };
  return children.find((child) => kindOf(child) === 'field') ?? newCondition(fields);
}
