/**
 * Resuming a partial submission: the request's answers merged over the stored ones, then checked and scored as a
 * new submission would be, against the form version the submission started on. Pure: the store calls it with the
 * submission as it is under its write lock, so two resumes at once each merge over the other's result.
 */
import type { Schema } from '../../contract.js';
import { conflict } from '../errors.js';
import { mergedMetadata } from '../metadata.js';
import type { FormDefinition } from '../schema-types.js';
import { scoreSubmission } from '../scoring/score-submission.js';
import { assertValidAnswers } from './validate-answers.js';

type Submission = Schema<'Submission'>;
export type SubmissionUpdate = Schema<'SubmissionUpdate'>;

/** 409 `submission_completed`: a completed submission is final, so what integrations and analytics were told stays true. */
export const submissionCompleted = (id: string) =>
  conflict('submission_completed', `Submission ${id} is completed; a completed submission cannot be changed.`);

export function assertResumable(submission: Submission): void {
  if (submission.status === 'completed') throw submissionCompleted(submission.id);
}

/** `changes` over `stored`: a value replaces, `null` clears, a ref left out keeps what is stored. */
export function mergeValues<Value>(
  stored: Record<string, Value>,
  changes: Record<string, Value | null> | undefined,
): Record<string, Value> {
  const merged: Record<string, Value> = { ...stored };
  for (const [ref, value] of Object.entries(changes ?? {})) {
    if (value === null) delete merged[ref];
    else merged[ref] = value;
  }
  return merged;
}

/**
 * The submission after `update`, checked and scored with `version` (the one it started on). Answers the merged
 * path no longer visits are refused (`not_visited`), not dropped: the caller clears them with `null`, so nothing a
 * respondent gave disappears unasked.
 */
export function resumedSubmission(
  current: Submission,
  update: SubmissionUpdate,
  version: FormDefinition & { version: number },
  at: string,
): Submission {
  assertResumable(current);
  const answers = mergeValues(current.answers, update.answers);
  const hidden = mergeValues(current.hidden, update.hidden);
  const status = update.status ?? 'partial';
  const metadata = mergedMetadata(current.metadata, update.metadata);
  const visitedSteps = assertValidAnswers(version, answers, hidden, status);
  const { score, grade, breakdown } = scoreSubmission(version, answers, hidden);
  return {
    ...current,
    status,
    answers,
    hidden,
    visited_steps: visitedSteps,
    score,
    grade,
    score_breakdown: breakdown,
    metadata,
    completed_at: status === 'completed' ? at : null,
    form_version: version.version,
    scored_at: at,
    updated_at: at,
  };
}
