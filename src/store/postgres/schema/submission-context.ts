/**
 * The v1 rename and what came with it. The respondent's context (user agent, referrer, landing URL, UTM), stored
 * as `metadata` until now, becomes `context`; `metadata` is now the caller's own key-value store (JSONB, `{}`
 * when none) on submissions, forms, folders and integrations.
 *
 * `completed_at`: when a submission became completed, null until then. Submissions completed before this column
 * existed get the best time known: their `submission.completed` event's (kept with the integrations' events),
 * and where that event is gone, `updated_at`, which is the completion time unless the submission was rescored
 * since (then it is later than the completion).
 */
export const submissionContextSchema = `
  ALTER TABLE submissions RENAME COLUMN metadata TO context;
  ALTER TABLE submissions ADD COLUMN metadata JSONB NOT NULL DEFAULT '{}'::jsonb;
  ALTER TABLE submissions ADD COLUMN completed_at TIMESTAMPTZ;
  UPDATE submissions SET completed_at = COALESCE(
    (SELECT MIN(e.created_at) FROM events e WHERE e.submission_id = submissions.id AND e.type = 'submission.completed'),
    updated_at)
  WHERE status = 'completed';
  ALTER TABLE forms ADD COLUMN metadata JSONB NOT NULL DEFAULT '{}'::jsonb;
  ALTER TABLE folders ADD COLUMN metadata JSONB NOT NULL DEFAULT '{}'::jsonb;
  ALTER TABLE integrations ADD COLUMN metadata JSONB NOT NULL DEFAULT '{}'::jsonb;
  `;
