/**
 * The normalised-address index of submissions (table `submission_emails`, see ./schema/submission-emails.ts).
 *
 * The index is derived from the stored answers and the definition of the submission's form version, in SQL, so
 * the same statement serves a new submission, the migration's backfill and any change of a submission's answers:
 * whoever changes `answers` calls `indexSubmissionEmails` in the same transaction.
 */
import type Database from 'better-sqlite3';
import type { ListedEmailAnswers } from '../submission-store.js';
import { indexSubmissionEmailsSql, normalisedEmail } from './schema/submission-emails.js';
import { statement } from './statements.js';

/** One entry of the index, normalised as `indexSubmissionEmailsSql` normalises. */
const insertEntrySql = `INSERT OR IGNORE INTO submission_emails (workspace_id, environment, email, submission_id, form_id)
  VALUES (?, ?, ${normalisedEmail('?')}, ?, ?)`;

/**
 * Recomputes one submission's index entries, from the answers the caller names (`emailAnswersOf`) or else from
 * its stored answers and form version; the caller provides the transaction.
 */
export function indexSubmissionEmails(db: Database.Database, submissionId: string, listed?: ListedEmailAnswers): void {
  statement(db, 'DELETE FROM submission_emails WHERE submission_id = ?').run(submissionId);
  insertSubmissionEmails(db, submissionId, listed);
}

/**
 * The entries of a submission that has none yet. Named answers cost an insert each; deriving them in SQL reads
 * the whole definition for every answer, which a form of the maximum size makes last seconds.
 */
export function insertSubmissionEmails(db: Database.Database, submissionId: string, listed?: ListedEmailAnswers): void {
  if (listed === undefined) {
    statement(db, indexSubmissionEmailsSql('s.id = ?')).run(submissionId);
    return;
  }
  for (const answer of listed.answers) {
    statement(db, insertEntrySql).run(listed.workspaceId, listed.environment, answer, submissionId, listed.formId);
  }
}
