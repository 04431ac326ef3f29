/**
 * Whether a condition holds for a set of answers. A comparison holds only when both the answer and the
 * rule's `value` are well-typed for the field (numbers as numbers, dates as calendar dates, booleans,
 * option values); anything else, including an unanswered field, makes every comparison false, `not_equals`
 * included, so a missing or malformed answer can never steer the logic.
 */
import { isAnswered, readAnswer } from '../answers.js';
import { compareCalendarDates, isCalendarDate } from '../calendar-date.js';
import type { Answers, Condition, Field, FieldCondition } from '../schema-types.js';
import { type AnswerKind, answerKindOf } from './answer-kinds.js';

export function evaluateCondition(condition: Condition, answers: Answers, fieldsByRef: ReadonlyMap<string, Field>): boolean {
  if ('all' in condition) return condition.all.every((nested) => evaluateCondition(nested, answers, fieldsByRef));
  if ('any' in condition) return condition.any.some((nested) => evaluateCondition(nested, answers, fieldsByRef));
  return evaluateFieldCondition(condition, answers, fieldsByRef);
}

function evaluateFieldCondition(condition: FieldCondition, answers: Answers, fieldsByRef: ReadonlyMap<string, Field>): boolean {
  const answer = readAnswer(answers, condition.field);
  if (condition.op === 'is_answered') return isAnswered(answer);
  if (condition.op === 'is_not_answered') return !isAnswered(answer);

  const field = fieldsByRef.get(condition.field);
  if (field === undefined || !isAnswered(answer)) return false;
  const kind = answerKindOf(field.type);

  switch (condition.op) {
    case 'equals':
      return answerEquals(kind, answer, condition.value) === true;
    case 'not_equals':
      return answerEquals(kind, answer, condition.value) === false;
    case 'contains':
      return answerContains(kind, answer, condition.value);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const order = compareOrdered(kind, answer, condition.value);
      if (order === undefined) return false;
      if (condition.op === 'gt') return order > 0;
      if (condition.op === 'gte') return order >= 0;
      if (condition.op === 'lt') return order < 0;
      return order <= 0;
    }
  }
}

/** `undefined` when the two values cannot be compared as this kind of answer. */
function answerEquals(kind: AnswerKind, answer: unknown, value: unknown): boolean | undefined {
  switch (kind) {
    case 'text':
    case 'option':
      return typeof answer === 'string' && typeof value === 'string' ? answer === value : undefined;
    case 'options': {
      // "equals" on a multiple choice answer means exactly that one option was chosen.
      if (!isStringArray(answer) || typeof value !== 'string') return undefined;
      const chosen = new Set(answer);
      return chosen.size === 1 && chosen.has(value);
    }
    case 'number':
      return isFiniteNumber(answer) && isFiniteNumber(value) ? answer === value : undefined;
    case 'date':
      return isCalendarDate(answer) && isCalendarDate(value) ? answer === value : undefined;
    case 'boolean':
      return typeof answer === 'boolean' && typeof value === 'boolean' ? answer === value : undefined;
  }
}

function answerContains(kind: AnswerKind, answer: unknown, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (kind === 'text') {
    return typeof answer === 'string' && answer.toLowerCase().includes(value.toLowerCase());
  }
  if (kind === 'options') return isStringArray(answer) && answer.includes(value);
  return false;
}

/** Sign of answer minus value, or `undefined` when they do not compare as this kind. */
function compareOrdered(kind: AnswerKind, answer: unknown, value: unknown): number | undefined {
  if (kind === 'number' && isFiniteNumber(answer) && isFiniteNumber(value)) {
    return answer < value ? -1 : answer > value ? 1 : 0;
  }
  if (kind === 'date' && isCalendarDate(answer) && isCalendarDate(value)) return compareCalendarDates(answer, value);
  return undefined;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
