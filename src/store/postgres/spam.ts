import type pg from 'pg';
import type { SpamStore } from '../spam-store.js';
import { spamSql } from '../sql/spam.js';
import { one, run } from './database.js';

export function postgresSpam(pool: pg.Pool): SpamStore {
  return {
    async claimChallenge(signature, expiresAt) {
      return (await run(pool, ...spamSql.claimChallenge.bindPostgres({ signature, expiresAt }))) === 1;
    },
    async purgeExpiredChallenges(before, limit) {
      return run(pool, ...spamSql.purgeExpiredChallenges.bindPostgres({ before, limit }));
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
