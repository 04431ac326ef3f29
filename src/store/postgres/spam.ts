import type pg from 'pg';
import type { SpamStore } from '../spam-store.js';
import { AlreadySpent, type CaughtSubmissionRow, caughtParameters, spamSql, toCaughtSubmission } from '../sql/spam.js';
import { inTransaction, one, run } from './database.js';

export function postgresSpam(pool: pg.Pool): SpamStore {
  return {
    async spend({ challenge, startedToken }) {
      try {
        // A claim racing another's waits on its unique key until that transaction ends, then finds it spent or not.
        await inTransaction(pool, async (client) => {
          if (challenge && (await run(client, ...spamSql.claimChallenge.bindPostgres(challenge))) === 0) {
            throw new AlreadySpent('challenge_used');
          }
          const token = startedToken && { tokenHash: startedToken.hash, expiresAt: startedToken.expiresAt };
          if (token && (await run(client, ...spamSql.claimStartedToken.bindPostgres(token))) === 0) {
            throw new AlreadySpent('started_token_used');
          }
        });
        return 'spent';
      } catch (error) {
        if (error instanceof AlreadySpent) return error.outcome;
        throw error;
      }
    },
    async refund({ challenge, startedToken }) {
      if (challenge) await run(pool, ...spamSql.refundChallenge.bindPostgres({ signature: challenge.signature }));
      if (startedToken) await run(pool, ...spamSql.refundStartedToken.bindPostgres({ tokenHash: startedToken.hash }));
    },
    async purgeExpired(before, limit) {
      const purged = await Promise.all(
        [spamSql.purgeExpiredChallenges, spamSql.purgeExpiredStartedTokens, spamSql.purgeExpiredCaught].map((statement) =>
          run(pool, ...statement.bindPostgres({ before, limit })),
        ),
      );
      return purged.reduce((sum, count) => sum + count, 0);
    },
    async recordCaught(caught) {
      await run(pool, ...spamSql.recordCaught.bindPostgres(caughtParameters(caught)));
    },
    async findCaught(submissionId) {
      const row = await one<CaughtSubmissionRow>(pool, ...spamSql.findCaught.bindPostgres({ submissionId }));
      return row && toCaughtSubmission(row);
    },
    async completeCaught(submissionId) {
      return (await run(pool, ...spamSql.completeCaught.bindPostgres({ submissionId }))) === 1;
    },
    async countSpam(formId, environment, day) {
      await run(pool, ...spamSql.countSpam.bindPostgres({ formId, environment, day }));
    },
    async spamCount(formId, environment, from, to) {
      const row = await one<{ spam: number }>(pool, ...spamSql.spamCount.bindPostgres({ formId, environment, from, to }));
      return row?.spam ?? 0;
    },
  };
}
