/**
 * `events.submission_id` (which submission a `submission.*` event carries, so that a deletion or an erasure finds
 * the events holding its answers) was a stored column generated from the body: every event insert parsed its whole
 * body as jsonb to read one id the writer already had, twice per submission create. The writers now set it
 * (`EventRecord.submissionId`); the rows already written keep the values the expression gave them.
 */
export const eventsSubmissionIdSchema = `
  ALTER TABLE events ALTER COLUMN submission_id DROP EXPRESSION;
`;
