import type Database from 'better-sqlite3';
import type { SpamStore } from '../spam-store.js';
import { spamSql } from '../sql/spam.js';
import { prepared } from './shared-sql.js';

export function sqliteSpam(db: Database.Database): SpamStore {
  return {
    async claimChallenge(signature, expiresAt) {
      return prepared(db, spamSql.claimChallenge).run({ signature, expiresAt }).changes === 1;
    },
    async purgeExpiredChallenges(before, limit) {
      return prepared(db, spamSql.purgeExpiredChallenges).run({ before, limit }).changes;
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
