/** The people store's procedures of more than one step (the others are written in place, in ./index.ts). */
import { StoreConflict } from '../errors.js';
import type { Account, InviteAcceptance, PeoplePurge } from '../people-store.js';
import type { AccountRow } from '../rows/people.js';
import { auditEventParameters, auditEventSql } from '../sql/audit-events.js';
import { accountParameters, peopleSql } from '../sql/people.js';
import { one, type Procedure, run } from '../sql/procedure.js';
import { memberParameters, teamSql } from '../sql/team.js';

/**
 * The account with the email, made from `account` when there is none. On PostgreSQL the insert of a second
 * transaction with the same email waits for the first and then inserts nothing; the read after it, a statement of
 * its own, sees the first one's row.
 */
export function* ensureAccount(account: Account): Procedure<AccountRow> {
  const parameters = accountParameters(account);
  yield* run(peopleSql.insertAccount, parameters);
  // There is one now: it was there, or was made just above, by this transaction or the one the insert waited for.
  return (yield* one(peopleSql.accountByEmail, parameters)) as AccountRow;
}

/**
 * Accepts an invitation. A refusal throws, so the transaction makes no change: the link must be the invite's and
 * unspent (of two acceptances at once, one spends it), the invite still pending, the email no member yet.
 */
export function* acceptInvite(acceptance: InviteAcceptance): Procedure<void> {
  const { workspaceId, inviteId, linkHash: hash, at, member } = acceptance;
  if ((yield* run(peopleSql.spendInviteLink, { hash, inviteId, at })) === 0) throw new StoreConflict('link_spent');
  if ((yield* run(peopleSql.acceptInvite, { inviteId, workspaceId, at })) === 0) throw new StoreConflict('invite_closed');
  yield* ensureAccount(acceptance.account);
  // The members' unique (workspace, email) refuses an email that is a member already.
  yield* run(teamSql.insertMember, memberParameters(workspaceId, member), { unique: 'member_exists' });
  yield* run(auditEventSql.insert, auditEventParameters(acceptance.audit));
}

/**
 * One batch of the purge: links first, then sessions, then sent mail, each taking what the limit leaves. Each
 * statement stands alone (a deleted row is no longer needed, whatever the next statement does).
 */
export function* purgeExpired({ before, idleBefore }: PeoplePurge, limit: number): Procedure<number> {
  let purged = yield* run(peopleSql.purgeLinks, { before, limit });
  if (purged < limit) purged += yield* run(peopleSql.purgeSessions, { before, idleBefore, limit: limit - purged });
  if (purged < limit) purged += yield* run(peopleSql.purgeSentMail, { before, limit: limit - purged });
  return purged;
}
