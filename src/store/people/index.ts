/**
 * The people store (../people-store.ts), written once for both stores: each method is a procedure over the shared
 * statements of ../sql/people.ts, run by the store's driver (../sqlite/procedures.ts, ../postgres/procedures.ts).
 */
import type { PeopleStore } from '../people-store.js';
import { toAccount, toLink, toMail, toMembership, toPasskey, toSession } from '../rows/people.js';
import { linkParameters, mailParameters, passkeyParameters, peopleSql, sessionParameters } from '../sql/people.js';
import { all, one, type ProcedureDriver, run } from '../sql/procedure.js';
import { acceptInvite, ensureAccount, purgeExpired } from './procedures.js';

export function peopleStore(driver: ProcedureDriver): PeopleStore {
  return {
    async getAccount(id) {
      const row = await driver.direct(() => one(peopleSql.accountById, { id }));
      return row && toAccount(row);
    },
    async findAccountByEmail(email) {
      const row = await driver.direct(() => one(peopleSql.accountByEmail, { email: email.toLowerCase() }));
      return row && toAccount(row);
    },
    async ensureAccount(account) {
      return toAccount(await driver.transaction(() => ensureAccount(account)));
    },
    async memberships(email) {
      const rows = await driver.direct(() => all(peopleSql.memberships, { email: email.toLowerCase() }));
      return rows.map(toMembership);
    },

    async createLink(link, mail) {
      await driver.transaction(function* () {
        yield* run(peopleSql.insertLink, linkParameters(link));
        if (mail) yield* run(peopleSql.insertMail, mailParameters(mail));
      });
    },
    async findLink(hash) {
      const row = await driver.direct(() => one(peopleSql.link, { hash }));
      return row && toLink(row);
    },
    async spendLink(hash, at) {
      const row = await driver.direct(() => one(peopleSql.spendLink, { hash, at }));
      return row && toLink(row);
    },
    async recentLinks(email, purpose, since) {
      const row = await driver.direct(() => one(peopleSql.recentLinks, { email: email.toLowerCase(), purpose, since }));
      return Number(row?.n ?? 0);
    },
    async spendInviteLinks(inviteId, at) {
      await driver.direct(() => run(peopleSql.spendInviteLinks, { inviteId, at }));
    },
    async acceptInvite(acceptance) {
      await driver.transaction(() => acceptInvite(acceptance));
    },

    async addPasskey(passkey) {
      await driver.direct(() => run(peopleSql.insertPasskey, passkeyParameters(passkey), { unique: 'passkey_exists' }));
    },
    async listPasskeys(accountId) {
      const rows = await driver.direct(() => all(peopleSql.passkeysOf, { accountId }));
      return rows.map(toPasskey);
    },
    async findPasskey(credentialId) {
      const row = await driver.direct(() => one(peopleSql.passkeyByCredential, { credentialId }));
      return row && toPasskey(row);
    },
    async recordPasskeyUse(id, counter, at) {
      await driver.direct(() => run(peopleSql.recordPasskeyUse, { id, counter, at }));
    },
    async removePasskey(accountId, id, at) {
      return driver.transaction(function* () {
        if ((yield* run(peopleSql.deletePasskey, { id, accountId })) === 0) return false;
        yield* run(peopleSql.endSessionsOfPasskey, { passkeyId: id, at });
        return true;
      });
    },

    async createSession(session) {
      await driver.direct(() => run(peopleSql.insertSession, sessionParameters(session)));
    },
    async findSession(hash) {
      const row = await driver.direct(() => one(peopleSql.session, { hash }));
      return row && toSession(row);
    },
    async liveSessionOf(accountId, now, idleSince) {
      const row = await driver.direct(() => one(peopleSql.liveSessionOf, { accountId, now, idleSince }));
      return row && { id: row.id, lastSeenAt: row.last_seen_at };
    },
    async touchSession(id, at) {
      await driver.direct(() => run(peopleSql.touchSession, { id, at }));
    },
    async endSession(id, at) {
      await driver.direct(() => run(peopleSql.endSession, { id, at }));
    },
    async endSessionsOf(accountId, at) {
      await driver.direct(() => run(peopleSql.endSessionsOf, { accountId, at }));
    },

    async dueMail(now, limit) {
      const rows = await driver.direct(() => all(peopleSql.dueMail, { now, limit }));
      return rows.map(toMail);
    },
    async claimMail(id, now, retryAt) {
      return (await driver.direct(() => run(peopleSql.claimMail, { id, now, retryAt }))) === 1;
    },
    async markMailSent(id, at) {
      await driver.direct(() => run(peopleSql.markMailSent, { id, at }));
    },

    async purgeExpired(cutoffs, limit) {
      return driver.direct(() => purgeExpired(cutoffs, limit));
    },
  };
}
