/**
 * The normalised-address index of submissions (table `submission_emails`, see ./schema/submission-emails.ts).
 *
 * The index is derived from the stored answers and the definition of the submission's form version, in SQL, so
 * the same statement serves a new submission, the migration's backfill and any change of a submission's answers:
 * whoever changes `answers` calls `indexSubmissionEmails` in the same transaction.
 */
import { type Queryable, run } from './database.js';

/**
 * The comparable form of an address: surrounding spaces, tabs and line breaks removed, ASCII letters in lower
 * case. `COLLATE "C"` makes `lower` fold ASCII letters only, as SQLite's does, so both stores match the same
 * addresses whatever the database's locale.
 */
export const normalisedEmail = (expression: string): string => `lower(btrim(${expression}, E' \\t\\n\\r') COLLATE "C")`;

/**
 * Indexes every string answer to an `email` field of the submissions matching `where` (on alias `s`). The field
 * types come from the submission's version snapshot, or from the form itself when that snapshot was pruned.
 */
export const indexSubmissionEmailsSql = (where: string): string => `
  INSERT INTO submission_emails (workspace_id, environment, email, submission_id, form_id)
  SELECT s.workspace_id, s.environment, ${normalisedEmail("answer.value #>> '{}'")}, s.id, s.form_id
  FROM submissions s
  CROSS JOIN LATERAL jsonb_each(s.answers) AS answer(key, value)
  CROSS JOIN LATERAL jsonb_array_elements(COALESCE(
    (SELECT v.definition FROM form_versions v WHERE v.form_id = s.form_id AND v.version = s.form_version),
    (SELECT f.definition FROM forms f WHERE f.id = s.form_id)
  )::jsonb -> 'steps') AS step(value)
  CROSS JOIN LATERAL jsonb_array_elements(step.value -> 'fields') AS field(value)
  WHERE jsonb_typeof(answer.value) = 'string' AND field.value ->> 'type' = 'email' AND field.value ->> 'ref' = answer.key
    AND ${where}
  ON CONFLICT DO NOTHING`;

/** Recomputes one submission's index entries from its stored answers; the caller provides the transaction. */
export async function indexSubmissionEmails(db: Queryable, submissionId: string): Promise<void> {
  await run(db, 'DELETE FROM submission_emails WHERE submission_id = $1', [submissionId]);
  await run(db, indexSubmissionEmailsSql('s.id = $1'), [submissionId]);
}
