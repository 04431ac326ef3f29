/**
 * The normalised-address index of submissions (table `submission_emails`, see ./schema/submission-emails.ts).
 *
 * A submission's entries are its string answers to the `email` fields of its form version, normalised in SQL.
 * Whoever writes `answers` writes the entries in the same transaction: a create or a resume names the answers
 * (`emailAnswersOf` in the domain, which holds the parsed version), since finding them in SQL joins every answer
 * with every field of the definition and takes most of a second on a form of the maximum size. The SQL
 * derivation (`indexSubmissionEmailsSql`) remains for the migration's backfill and for records that name none.
 */
import type { ListedEmailAnswers } from '../submission-store.js';
import { type Queryable, run } from './database.js';
import { indexSubmissionEmailsSql, normalisedEmail } from './schema/submission-emails.js';

/**
 * Recomputes one submission's index entries, from the answers the caller names (`emailAnswersOf`) or else from
 * its stored answers and form version; the caller provides the transaction.
 */
export async function indexSubmissionEmails(db: Queryable, submissionId: string, listed?: ListedEmailAnswers): Promise<void> {
  await run(db, 'DELETE FROM submission_emails WHERE submission_id = $1', [submissionId]);
  await insertSubmissionEmails(db, submissionId, listed);
}

/**
 * The entries of a submission that has none yet. Named answers go in one statement; deriving them in SQL reads
 * the whole definition for every answer.
 */
export async function insertSubmissionEmails(db: Queryable, submissionId: string, listed?: ListedEmailAnswers): Promise<void> {
  if (listed === undefined) {
    await run(db, indexSubmissionEmailsSql('s.id = $1'), [submissionId]);
    return;
  }
  if (listed.answers.length === 0) return;
  await run(
    db,
    `INSERT INTO submission_emails (workspace_id, environment, email, submission_id, form_id)
     SELECT $1, $2, ${normalisedEmail('answer')}, $4, $5 FROM unnest($3::text[]) AS answer
     ON CONFLICT DO NOTHING`,
    [listed.workspaceId, listed.environment, [...listed.answers], submissionId, listed.formId],
  );
}
