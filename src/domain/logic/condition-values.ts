/**
 * The values conditions look at. Answers and hidden values arrive in separate objects; each field's value
 * is read from the one its type belongs to (`hidden` for hidden fields, `answers` for the rest), so a value
 * sent in the wrong object never satisfies a condition. The record has no prototype: refs such as
 * `constructor` read nothing they were not given.
 */
import { hasAnswerKey, readAnswer } from '../answers.js';
import type { Answers, Step } from '../schema-types.js';

export type ConditionValues = Record<string, unknown>;

export function hiddenValuesOf(steps: readonly Step[], hidden: Answers): ConditionValues {
  const values = Object.create(null) as ConditionValues;
  for (const step of steps) {
    for (const field of step.fields) {
      if (field.type === 'hidden' && hasAnswerKey(hidden, field.ref)) values[field.ref] = readAnswer(hidden, field.ref);
    }
  }
  return values;
}

export function addStepAnswers(values: ConditionValues, step: Step, answers: Answers): void {
  for (const field of step.fields) {
    if (field.type !== 'hidden' && hasAnswerKey(answers, field.ref)) values[field.ref] = readAnswer(answers, field.ref);
  }
}

/** Every value given, whatever the path: what scoring rules see. */
export function allConditionValues(steps: readonly Step[], answers: Answers, hidden: Answers): ConditionValues {
  const values = hiddenValuesOf(steps, hidden);
  for (const step of steps) addStepAnswers(values, step, answers);
  return values;
}
