import type Database from 'better-sqlite3';
import type { SubmissionStore } from '../submission-store.js';

/** Statements that delete a form's rows of this module (parameter: the form id), run inside the form's cascade. */
export const submissionFormCascade: string[] = [];
/** Statements that move a transferred form's rows (parameters: new workspace id, form id). */
export const submissionFormTransfer: string[] = [];
/** Test-mode rows of a workspace (parameter: workspace id), with the count they report. */
export const submissionTestData: Array<{ counts: 'submissions' | null; sql: string }> = [];

export function sqliteSubmissions(_db: Database.Database): SubmissionStore {
  return {};
}
