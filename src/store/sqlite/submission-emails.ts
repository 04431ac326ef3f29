/**
 * The normalised-address index of submissions (table `submission_emails`, see ./schema/submission-emails.ts).
 *
 * A submission's entries are its string answers to the `email` fields of its form version, normalised in SQL.
 * Whoever writes `answers` writes the entries in the same transaction: a create or a resume names the answers
 * (`emailAnswersOf` in the domain, which holds the parsed version), since finding them in SQL joins every answer
 * with every field of the definition and takes most of a second on a form of the maximum size. The SQL
 * derivation (`indexSubmissionEmailsSql`) remains for the migration's backfill and for records that name none.
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
