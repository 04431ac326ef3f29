/**
 * The normalised-address index of submissions (table `submission_emails`, see ./schema/submission-emails.ts).
 *
 * The index is derived from the stored answers and the definition of the submission's form version, in SQL, so
 * the same statement serves a new submission, the migration's backfill and any change of a submission's answers:
 * whoever changes `answers` calls `indexSubmissionEmails` in the same transaction.
 */
import type Database from 'better-sqlite3';
import { statement } from './statements.js';

/**
 * The comparable form of an address: surrounding spaces, tabs and line breaks removed, ASCII letters in lower
 * case (SQLite's `lower` folds ASCII only; the PostgreSQL store folds the same letters).
 */
export const normalisedEmail = (expression: string): string => `lower(trim(${expression}, char(32, 9, 10, 13)))`;

/**
 * Indexes every string answer to an `email` field of the submissions matching `where` (on alias `s`). The field
 * types come from the submission's version snapshot, or from the form itself when that snapshot was pruned.
 */
export const indexSubmissionEmailsSql = (where: string): string => `
  INSERT OR IGNORE INTO submission_emails (workspace_id, environment, email, submission_id, form_id)
  SELECT s.workspace_id, s.environment, ${normalisedEmail('answer.value')}, s.id, s.form_id
  FROM submissions s
  JOIN json_each(s.answers) AS answer ON answer.type = 'text'
  JOIN json_each(COALESCE(
    (SELECT v.definition FROM form_versions v WHERE v.form_id = s.form_id AND v.version = s.form_version),
    (SELECT f.definition FROM forms f WHERE f.id = s.form_id)
  ), '$.steps') AS step
  JOIN json_each(step.value, '$.fields') AS field
    ON json_extract(field.value, '$.type') = 'email' AND json_extract(field.value, '$.ref') = answer.key
  WHERE ${where}`;

/** Recomputes one submission's index entries from its stored answers; the caller provides the transaction. */
export function indexSubmissionEmails(db: Database.Database, submissionId: string): void {
  statement(db, 'DELETE FROM submission_emails WHERE submission_id = ?').run(submissionId);
  statement(db, indexSubmissionEmailsSql('s.id = ?')).run(submissionId);
}
