/**
 * Consistency of the steps and their fields (422 `invalid_form`): names that logic, answers and scoring rely
 * on are unique, and every field's bounds leave at least one acceptable answer.
 */
import type { ValidationIssue } from '../../contract.js';
import { isCalendarDate } from '../calendar-date.js';
import type { Field, Step } from '../schema-types.js';
import { bodyIssue, jsonPointer } from '../validation-issue.js';
import { maxLengthOf } from './field-defaults.js';

export function checkSteps(steps: readonly Step[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seenStepIds = new Set<string>();
  const seenRefs = new Set<string>();

  steps.forEach((step, stepIndex) => {
    if (seenStepIds.has(step.id)) {
      issues.push(bodyIssue(jsonPointer('steps', stepIndex, 'id'), 'duplicate_step_id', `Another step already has the id \`${step.id}\`.`));
    }
    seenStepIds.add(step.id);

    step.fields.forEach((field, fieldIndex) => {
      const at = jsonPointer('steps', stepIndex, 'fields', fieldIndex);
      // Refs are unique across the whole form: answers, logic and scoring name fields by ref alone.
      if (seenRefs.has(field.ref)) {
        issues.push(bodyIssue(`${at}/ref`, 'duplicate_ref', `Another field of this form already has the ref \`${field.ref}\`.`));
      }
      seenRefs.add(field.ref);
      issues.push(...checkField(field, at));
    });
  });
  return issues;
}

function checkField(field: Field, at: string): ValidationIssue[] {
  switch (field.type) {
    case 'short_text':
    case 'long_text': {
      const max = maxLengthOf(field);
      return field.min_length !== undefined && field.min_length > max
        ? [rangeIssue(`${at}/min_length`, `min_length (${field.min_length}) is above max_length (${max}).`)]
        : [];
    }
    case 'number':
      return field.minimum !== undefined && field.maximum !== undefined && field.minimum > field.maximum
        ? [rangeIssue(`${at}/minimum`, `minimum (${field.minimum}) is above maximum (${field.maximum}).`)]
        : [];
    case 'single_choice':
      return duplicateOptions(field.options, at);
    case 'multiple_choice':
      return [
        ...duplicateOptions(field.options, at),
        ...selectionBounds(field.min_selections, field.max_selections, field.options.length, at),
      ];
    case 'date':
      return dateBounds(field.min_date, field.max_date, at);
    default:
      return [];
  }
}

function duplicateOptions(options: readonly { value: string }[], at: string): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  options.forEach((option, optionIndex) => {
    if (seen.has(option.value)) {
      issues.push(
        bodyIssue(
          `${at}/options/${optionIndex}/value`,
          'duplicate_option',
          `Another option of this field already has the value \`${option.value}\`.`,
        ),
      );
    }
    seen.add(option.value);
  });
  return issues;
}

function selectionBounds(min: number | undefined, max: number | undefined, optionCount: number, at: string): ValidationIssue[] {
  if (min === undefined) return [];
  if (max !== undefined && min > max) {
    return [rangeIssue(`${at}/min_selections`, `min_selections (${min}) is above max_selections (${max}).`)];
  }
  if (min > optionCount) {
    return [rangeIssue(`${at}/min_selections`, `min_selections (${min}) is above the number of options (${optionCount}).`)];
  }
  return [];
}

function dateBounds(min: string | undefined, max: string | undefined, at: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (min !== undefined && !isCalendarDate(min)) {
    issues.push(bodyIssue(`${at}/min_date`, 'invalid_date', `\`${min}\` is not a calendar date (YYYY-MM-DD).`));
  }
  if (max !== undefined && !isCalendarDate(max)) {
    issues.push(bodyIssue(`${at}/max_date`, 'invalid_date', `\`${max}\` is not a calendar date (YYYY-MM-DD).`));
  }
  if (issues.length === 0 && min !== undefined && max !== undefined && min > max) {
    issues.push(rangeIssue(`${at}/min_date`, `min_date (${min}) is after max_date (${max}).`));
  }
  return issues;
}

function rangeIssue(pointer: string, message: string): ValidationIssue {
  return bodyIssue(pointer, 'invalid_range', `${message} No answer could satisfy the field.`);
}
