import type Database from 'better-sqlite3';
import type { SpamStore, SpentClaims } from '../spam-store.js';
import { AlreadySpent, type CaughtSubmissionRow, caughtParameters, spamSql, toCaughtSubmission } from '../sql/spam.js';
import { prepared } from './shared-sql.js';

export function sqliteSpam(db: Database.Database): SpamStore {
  /** One transaction: a claim already spent throws out of it, which rolls back the claims recorded before it. */
  const spendAll = db.transaction((claims: SpentClaims) => {
    const { challenge, startedToken } = claims;
    if (challenge && prepared(db, spamSql.claimChallenge).run(challenge).changes === 0) throw new AlreadySpent('challenge_used');
    if (
      startedToken &&
      prepared(db, spamSql.claimStartedToken).run({ tokenHash: startedToken.hash, expiresAt: startedToken.expiresAt }).changes === 0
    ) {
      throw new AlreadySpent('started_token_used');
    }
  });
  return {
    async spend(claims) {
      try {
        spendAll(claims);
        return 'spent';
      } catch (error) {
        if (error instanceof AlreadySpent) return error.outcome;
        throw error;
      }
    },
    async refund({ challenge, startedToken }) {
      if (challenge) prepared(db, spamSql.refundChallenge).run({ signature: challenge.signature });
      if (startedToken) prepared(db, spamSql.refundStartedToken).run({ tokenHash: startedToken.hash });
    },
    async purgeExpired(before, limit) {
      return (
        prepared(db, spamSql.purgeExpiredChallenges).run({ before, limit }).changes +
        prepared(db, spamSql.purgeExpiredStartedTokens).run({ before, limit }).changes +
        prepared(db, spamSql.purgeExpiredCaught).run({ before, limit }).changes
      );
    },
    async recordCaught(caught) {
      prepared(db, spamSql.recordCaught).run(caughtParameters(caught));
    },
    async findCaught(submissionId) {
      const row = prepared(db, spamSql.findCaught).get({ submissionId }) as CaughtSubmissionRow | undefined;
      return row && toCaughtSubmission(row);
    },
    async completeCaught(submissionId) {
      return prepared(db, spamSql.completeCaught).run({ submissionId }).changes === 1;
    },
    async countSpam(formId, environment, day) {
      prepared(db, spamSql.countSpam).run({ formId, environment, day });
    },
    async spamCount(formId, environment, from, to) {
      const row = prepared(db, spamSql.spamCount).get({ formId, environment, from, to }) as { spam: number };
      return row.spam;
    },
  };
}
