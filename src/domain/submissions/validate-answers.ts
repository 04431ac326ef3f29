/**
 * Semantic validation of a submission against its form (422 `invalid_answers`): the logic decides which
 * steps were visited; answers may only belong to those steps, each must fit its field, and a `completed`
 * submission must answer every required field of them. Every field with a problem gets one issue.
 */
import type { ValidationIssue } from '../../contract.js';
import { hasAnswerKey, isAnswered, readAnswer } from '../answers.js';
import { unprocessable } from '../errors.js';
import { isRequired } from '../forms/field-defaults.js';
import { type FieldLocation, locateFields } from '../forms/form-index.js';
import { walkStepIndices } from '../logic/walk-path.js';
import type { Answers, FormDefinition, SubmissionStatus } from '../schema-types.js';
import { bodyIssue, jsonPointer } from '../validation-issue.js';
import { type AskedField, checkAnswer } from './check-answer.js';

export interface AnswersCheck {
  /** Ids of the visited steps, in order; for `partial`, cut after the last step that has an answer. */
  visitedSteps: string[];
  issues: ValidationIssue[];
}

export function validateAnswers(definition: FormDefinition, answers: Answers, hidden: Answers, status: SubmissionStatus): AnswersCheck {
  const fields = locateFields(definition.steps);
  const path = walkStepIndices(definition, answers, hidden);
  const visited = new Set(path);
  const issues: ValidationIssue[] = [];

  for (const location of fields.values()) {
    if (location.field.type === 'hidden') issues.push(...checkHiddenField(location.field.ref, answers, hidden));
    else issues.push(...checkAskedField(location.field, visited.has(location.stepIndex), answers, hidden, status));
  }
  issues.push(...unknownKeys(answers, fields, 'answers'), ...unknownKeys(hidden, fields, 'hidden'));

  const reached = status === 'partial' ? cutAtLastAnsweredStep(path, fields, answers) : path;
  return { visitedSteps: reached.map((index) => definition.steps[index]!.id), issues };
}

/** The visited steps of valid answers; otherwise 422 `invalid_answers` with every issue. */
export function assertValidAnswers(definition: FormDefinition, answers: Answers, hidden: Answers, status: SubmissionStatus): string[] {
  const { visitedSteps, issues } = validateAnswers(definition, answers, hidden, status);
  if (issues.length > 0) throw invalidAnswers(issues);
  return visitedSteps;
}

/** 422 `invalid_answers` listing `issues`. */
export const invalidAnswers = (issues: ValidationIssue[]) =>
  unprocessable(
    'invalid_answers',
    issues,
    `${issues.length} ${issues.length === 1 ? 'answer is' : 'answers are'} invalid; see details.errors.`,
  );

function checkHiddenField(ref: string, answers: Answers, hidden: Answers): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (hasAnswerKey(answers, ref)) {
    issues.push(
      bodyIssue(jsonPointer('answers', ref), 'unknown_field', `\`${ref}\` is a hidden field: pass its value in \`hidden\`.`, ref),
    );
  }
  const value = readAnswer(hidden, ref);
  if (value !== undefined && typeof value !== 'string') {
    issues.push(bodyIssue(jsonPointer('hidden', ref), 'type', `\`${ref}\` takes a string.`, ref));
  }
  return issues;
}

function checkAskedField(
  field: AskedField,
  onVisitedStep: boolean,
  answers: Answers,
  hidden: Answers,
  status: SubmissionStatus,
): ValidationIssue[] {
  const { ref } = field;
  const issues: ValidationIssue[] = [];
  if (hasAnswerKey(hidden, ref)) {
    issues.push(
      bodyIssue(jsonPointer('hidden', ref), 'unknown_field', `\`${ref}\` is not a hidden field: pass its answer in \`answers\`.`, ref),
    );
  }

  const value = readAnswer(answers, ref);
  // An empty string or array is "no answer" (as for is_answered), so sending one for a skipped field is harmless.
  if (!isAnswered(value)) {
    if (onVisitedStep && status === 'completed' && isRequired(field)) {
      issues.push(bodyIssue(jsonPointer('answers', ref), 'required', `\`${ref}\` is required.`, ref));
    }
    return issues;
  }
  if (!onVisitedStep) {
    issues.push(
      bodyIssue(jsonPointer('answers', ref), 'not_visited', `\`${ref}\` is on a step the form's logic skips for these answers.`, ref),
    );
    return issues;
  }
  const problem = checkAnswer(field, value);
  if (problem) {
    issues.push(bodyIssue(jsonPointer('answers', ref), problem.code, problem.message, ref));
  } else if (field.type === 'consent' && value === false && status === 'completed' && isRequired(field)) {
    // Like any required field, consent is enforced only once the respondent finishes the form.
    issues.push(bodyIssue(jsonPointer('answers', ref), 'consent_required', `\`${ref}\` must be accepted.`, ref));
  }
  return issues;
}

// Sorted, so the issue list does not depend on the order of the keys in the request.
function unknownKeys(values: Answers, fields: ReadonlyMap<string, FieldLocation>, object: 'answers' | 'hidden'): ValidationIssue[] {
  return Object.keys(values)
    .filter((key) => !fields.has(key))
    .sort()
    .map((key) => bodyIssue(jsonPointer(object, key), 'unknown_field', `No field of this form has the ref \`${key}\`.`, key));
}

/**
 * A partial submission stopped somewhere: the path ends at the last visited step holding an answer (at the
 * first step when nothing was answered), not where the logic would have led next.
 */
function cutAtLastAnsweredStep(path: readonly number[], fields: ReadonlyMap<string, FieldLocation>, answers: Answers): number[] {
  const answeredSteps = new Set<number>();
  for (const { field, stepIndex } of fields.values()) {
    if (field.type !== 'hidden' && isAnswered(readAnswer(answers, field.ref))) answeredSteps.add(stepIndex);
  }
  let last = 0;
  path.forEach((stepIndex, position) => {
    if (answeredSteps.has(stepIndex)) last = position;
  });
  return path.slice(0, last + 1);
}
