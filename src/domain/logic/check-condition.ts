/**
 * Static checks of one condition against the form it belongs to: the field exists, the operator suits the
 * field's type, and `value` is something such an answer could equal (an option of a choice field, a real
 * date for a date field). Used for logic rules and scoring rules alike.
 */
import type { ValidationIssue } from '../../contract.js';
import { isCalendarDate } from '../calendar-date.js';
import type { FieldLocation } from '../forms/form-index.js';
import type { Condition, FieldCondition } from '../schema-types.js';
import { bodyIssue } from '../validation-issue.js';
import { answerKindOf, fieldTypesAccepting, operatorAppliesTo } from './answer-kinds.js';

/** The spec's Condition: "at most 5 levels deep" (a field comparison alone is one level). */
export const MAX_CONDITION_DEPTH = 5;

export interface ConditionScope {
  fields: ReadonlyMap<string, FieldLocation>;
  /**
   * For a logic rule, the position of its `from_step`: fields of later steps cannot have been answered when
   * the rule runs. Absent for scoring rules, which run once the whole submission is in.
   */
  fromStepIndex?: number | undefined;
}

export function checkCondition(condition: Condition, pointer: string, scope: ConditionScope): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const visit = (node: Condition, at: string, depth: number): void => {
    if (depth > MAX_CONDITION_DEPTH) {
      issues.push(bodyIssue(at, 'condition_too_deep', `Conditions nest at most ${MAX_CONDITION_DEPTH} levels deep.`));
      return;
    }
    if ('all' in node) {
      for (const [i, nested] of node.all.entries()) visit(nested, `${at}/all/${i}`, depth + 1);
    } else if ('any' in node) {
      for (const [i, nested] of node.any.entries()) visit(nested, `${at}/any/${i}`, depth + 1);
    } else issues.push(...checkFieldCondition(node, at, scope));
  };
  visit(condition, pointer, 1);
  return issues;
}

function checkFieldCondition(condition: FieldCondition, pointer: string, scope: ConditionScope): ValidationIssue[] {
  const location = scope.fields.get(condition.field);
  if (location === undefined) {
    return [bodyIssue(`${pointer}/field`, 'unknown_field', `No field of this form has the ref \`${condition.field}\`.`)];
  }
  const { field } = location;
  const issues: ValidationIssue[] = [];

  // Hidden values are known from the first step on, so only asked fields can be referenced too early.
  if (scope.fromStepIndex !== undefined && field.type !== 'hidden' && location.stepIndex > scope.fromStepIndex) {
    issues.push(
      bodyIssue(
        `${pointer}/field`,
        'forward_reference',
        `\`${field.ref}\` is asked on a later step than the rule's \`from_step\`, so it is never answered when the rule runs.`,
      ),
    );
  }

  if (!operatorAppliesTo(condition.op, field.type)) {
    issues.push(
      bodyIssue(
        `${pointer}/op`,
        'operator_mismatch',
        `\`${condition.op}\` does not apply to a ${field.type} field; it applies to: ${fieldTypesAccepting(condition.op).join(', ')}.`,
      ),
    );
    return issues;
  }
  if (!('value' in condition)) return issues;

  const value: unknown = condition.value;
  const at = `${pointer}/value`;
  switch (answerKindOf(field.type)) {
    case 'text':
      if (typeof value !== 'string') issues.push(valueMismatch(at, field.type, 'a string'));
      break;
    case 'option':
    case 'options':
      if (typeof value !== 'string') {
        issues.push(valueMismatch(at, field.type, 'an option value (a string)'));
      } else if (field.type === 'single_choice' || field.type === 'multiple_choice') {
        if (!field.options.some((option) => option.value === value)) {
          issues.push(bodyIssue(at, 'unknown_option', `\`${field.ref}\` has no option with the value \`${value}\`.`));
        }
      }
      break;
    case 'number':
      if (typeof value !== 'number') issues.push(valueMismatch(at, field.type, 'a number'));
      break;
    case 'date':
      if (typeof value !== 'string') issues.push(valueMismatch(at, field.type, 'a date (YYYY-MM-DD)'));
      else if (!isCalendarDate(value)) issues.push(bodyIssue(at, 'invalid_date', `\`${value}\` is not a calendar date (YYYY-MM-DD).`));
      break;
    case 'boolean':
      if (typeof value !== 'boolean') issues.push(valueMismatch(at, field.type, 'a boolean'));
      break;
  }
  return issues;
}

function valueMismatch(pointer: string, fieldType: string, expected: string): ValidationIssue {
  return bodyIssue(pointer, 'operator_mismatch', `A condition on a ${fieldType} field compares with ${expected}.`);
}
