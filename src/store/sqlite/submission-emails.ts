/**
 * The normalised-address index of submissions (table `submission_emails`, see ./schema/submission-emails.ts).
 *
 * The index is derived from the stored answers and the definition of the submission's form version, in SQL, so
 * the same statement serves a new submission, the migration's backfill and any change of a submission's answers:
 * whoever changes `answers` calls `indexSubmissionEmails` in the same transaction.
 */
import type Database from 'better-sqlite3';
import { indexSubmissionEmailsSql } from './schema/submission-emails.js';
import { statement } from './statements.js';

/** Recomputes one submission's index entries from its stored answers; the caller provides the transaction. */
export function indexSubmissionEmails(db: Database.Database, submissionId: string): void {
  statement(db, 'DELETE FROM submission_emails WHERE submission_id = ?').run(submissionId);
  statement(db, indexSubmissionEmailsSql('s.id = ?')).run(submissionId);
}
