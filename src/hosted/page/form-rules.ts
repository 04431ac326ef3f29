/**
 * The page's rules, which are the server's: the path through the steps (src/domain/logic/walk-path.ts) and the
 * answer checks (src/domain/submissions/validate-answers.ts), imported, not rewritten. The page asks them which step
 * comes next and what is wrong with a step's answers before it sends them; the server asks them again on arrival.
 */
import type { Schema, ValidationIssue } from '../../contract.js';
import { walkStepIndices } from '../../domain/logic/walk-path.js';
import type { Answers, FormDefinition } from '../../domain/schema-types.js';
import { validateAnswers } from '../../domain/submissions/validate-answers.js';

export type PublicForm = Schema<'PublicForm'>;
/** A field the respondent answers (a hidden field's value comes from the page's address). */
export type AskedField = Exclude<Schema<'Field'>, { type: 'hidden' }>;

/** A public form as the domain's checks take it: scoring is not the page's business (and not shown to it). */
const definitionOf = (form: Pick<PublicForm, 'steps' | 'logic'>): FormDefinition => ({
  steps: form.steps,
  logic: form.logic,
  scoring: { rules: [], grades: [] },
});

/** Positions of the steps the answers lead through, in order. */
export const pathOf = (form: Pick<PublicForm, 'steps' | 'logic'>, answers: Answers, hidden: Answers = {}): number[] =>
  walkStepIndices(definitionOf(form), answers, hidden);

/** The step after `current` for these answers; `steps.length` when the form ends there. */
export function nextStepAfter(form: Pick<PublicForm, 'steps' | 'logic'>, current: number, answers: Answers, hidden: Answers = {}): number {
  const path = pathOf(form, answers, hidden);
  const at = path.indexOf(current);
  return at === -1 || at + 1 >= path.length ? form.steps.length : path[at + 1]!;
}

/**
 * What is wrong with the answers of one step, as the server would say it on completion: missing required answers and
 * answers that do not fit their field. Issues of other steps are not this step's to show.
 */
export function stepIssues(
  form: Pick<PublicForm, 'steps' | 'logic'>,
  step: number,
  answers: Answers,
  hidden: Answers = {},
): ValidationIssue[] {
  const refs = new Set(form.steps[step]?.fields.map((field) => field.ref));
  return validateAnswers(definitionOf(form), answers, hidden, 'completed').issues.filter(
    (issue) => issue.field !== undefined && refs.has(issue.field) && issue.location === 'body' && issue.pointer.startsWith('/answers/'),
  );
}

/** Refs answered on steps the answers no longer lead through (the respondent went back and changed course). */
export function offPathRefs(form: Pick<PublicForm, 'steps' | 'logic'>, answers: Answers, hidden: Answers = {}): string[] {
  const onPath = new Set(pathOf(form, answers, hidden));
  return form.steps
    .flatMap((step, index) => (onPath.has(index) ? [] : step.fields.map((field) => field.ref)))
    .filter((ref) => Object.hasOwn(answers, ref));
}
