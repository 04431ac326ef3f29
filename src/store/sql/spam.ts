import type { CaughtSubmission, SpendOutcome } from '../spam-store.js';
import { shared } from './statement.js';

export const spamSql = {
  claimChallenge: shared('INSERT INTO used_challenges (signature, expires_at) VALUES (:signature, :expiresAt) ON CONFLICT DO NOTHING'),
  claimStartedToken: shared(
    'INSERT INTO spent_started_tokens (token_hash, expires_at) VALUES (:tokenHash, :expiresAt) ON CONFLICT DO NOTHING',
  ),
  refundChallenge: shared('DELETE FROM used_challenges WHERE signature = :signature'),
  refundStartedToken: shared('DELETE FROM spent_started_tokens WHERE token_hash = :tokenHash'),
  purgeExpiredChallenges: shared(
    'DELETE FROM used_challenges WHERE signature IN (SELECT signature FROM used_challenges WHERE expires_at < :before LIMIT :limit)',
  ),
  purgeExpiredStartedTokens: shared(
    `DELETE FROM spent_started_tokens WHERE token_hash IN
     (SELECT token_hash FROM spent_started_tokens WHERE expires_at < :before LIMIT :limit)`,
  ),
  purgeExpiredCaught: shared(
    `DELETE FROM caught_submissions WHERE submission_id IN
     (SELECT submission_id FROM caught_submissions WHERE expires_at < :before LIMIT :limit)`,
  ),
  recordCaught: shared(
    `INSERT INTO caught_submissions (submission_id, workspace_id, environment, form_id, token_hash, completed, expires_at)
     VALUES (:submissionId, :workspaceId, :environment, :formId, :tokenHash, :completed, :expiresAt)`,
  ),
  findCaught: shared(
    `SELECT submission_id, workspace_id, environment, form_id, token_hash, completed, expires_at
     FROM caught_submissions WHERE submission_id = :submissionId`,
  ),
  completeCaught: shared('UPDATE caught_submissions SET completed = TRUE WHERE submission_id = :submissionId AND NOT completed'),
  countSpam: shared(
    `INSERT INTO spam_counts (form_id, environment, day, count) VALUES (:formId, :environment, :day, 1)
     ON CONFLICT (form_id, environment, day) DO UPDATE SET count = spam_counts.count + 1`,
  ),
  // PostgreSQL sums a BIGINT column as a NUMERIC, which node-postgres reads as text: the cast makes it a BIGINT there
  // (`::` would not parse on SQLite, where the cast changes nothing).
  spamCount: shared(
    `SELECT CAST(COALESCE(SUM(count), 0) AS BIGINT) AS spam FROM spam_counts
     WHERE form_id = :formId AND environment = :environment AND day BETWEEN :from AND :to`,
  ),
};

export interface CaughtSubmissionRow {
  submission_id: string;
  workspace_id: string;
  environment: CaughtSubmission['environment'];
  form_id: string;
  token_hash: Buffer;
  /** SQLite keeps a boolean as 0 or 1. */
  completed: boolean | number;
  expires_at: string;
}

/** `completed` as both stores take it: SQLite binds no boolean, and PostgreSQL reads 1 and 0 as true and false. */
export const caughtParameters = (caught: CaughtSubmission) => ({
  submissionId: caught.submissionId,
  workspaceId: caught.workspaceId,
  environment: caught.environment,
  formId: caught.formId,
  tokenHash: caught.tokenHash,
  completed: caught.completed ? 1 : 0,
  expiresAt: caught.expiresAt,
});

export const toCaughtSubmission = (row: CaughtSubmissionRow): CaughtSubmission => ({
  submissionId: row.submission_id,
  workspaceId: row.workspace_id,
  environment: row.environment,
  formId: row.form_id,
  tokenHash: row.token_hash,
  completed: Boolean(row.completed),
  expiresAt: row.expires_at,
});

/** Thrown inside a spend's transaction to roll it back: the claim named was spent before. */
export class AlreadySpent extends Error {
  constructor(readonly outcome: Exclude<SpendOutcome, 'spent'>) {
    super(`already spent: ${outcome}`);
  }
}
