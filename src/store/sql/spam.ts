import { shared } from './statement.js';

export const spamSql = {
  claimChallenge: shared('INSERT INTO used_challenges (signature, expires_at) VALUES (:signature, :expiresAt) ON CONFLICT DO NOTHING'),
  purgeExpiredChallenges: shared(
    'DELETE FROM used_challenges WHERE signature IN (SELECT signature FROM used_challenges WHERE expires_at < :before LIMIT :limit)',
  ),
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
