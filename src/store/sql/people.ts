import type { Account, OneTimeLink, OutgoingMail, Passkey, Session } from '../people-store.js';
import type { AccountRow, LinkRow, MailRow, MembershipRow, PasskeyRow, SessionRow } from '../rows/people.js';
import { returning } from './procedure.js';
import { type ParametersOf, shared } from './statement.js';

const accountColumns = 'id, email, name, created_at';
const passkeyColumns = 'id, account_id, credential_id, public_key, counter, transports, name, created_at, last_used_at';
const linkColumns = 'token_hash, purpose, email, workspace_id, invite_id, expires_at, created_at, used_at';
const mailColumns = 'id, recipient, subject, text, html, created_at, attempts, next_attempt_at, sent_at';

/** People's statements (src/store/people-store.ts), run by the procedures of src/store/people/. */
export const peopleSql = {
  accountById: returning<AccountRow>()(shared(`SELECT ${accountColumns} FROM accounts WHERE id = :id`)),
  accountByEmail: returning<AccountRow>()(shared(`SELECT ${accountColumns} FROM accounts WHERE email = :email`)),
  // Of two inserts of one email at once, the second waits for the first and then inserts nothing.
  insertAccount: shared(
    `INSERT INTO accounts (id, email, name, created_at) VALUES (:id, :email, :name, :createdAt) ON CONFLICT (email) DO NOTHING`,
  ),
  memberships: returning<MembershipRow>()(
    shared(
      `SELECT m.id AS member_id, m.workspace_id, w.name AS workspace_name, w.plan, m.role, m.created_at AS joined_at
       FROM members m JOIN workspaces w ON w.id = m.workspace_id WHERE m.email = :email ORDER BY m.created_at, m.id`,
    ),
  ),

  insertLink: shared(
    `INSERT INTO one_time_links (token_hash, purpose, email, workspace_id, invite_id, expires_at, created_at, used_at)
     VALUES (:hash, :purpose, :email, :workspaceId, :inviteId, :expiresAt, :createdAt, :usedAt)`,
  ),
  link: returning<LinkRow>()(shared(`SELECT ${linkColumns} FROM one_time_links WHERE token_hash = :hash`)),
  // One guarded UPDATE: of two spends at once, the second finds the link used (PostgreSQL re-reads the row it waited
  // for), so exactly one gets the row back.
  spendLink: returning<LinkRow>()(
    shared(
      `UPDATE one_time_links SET used_at = :at WHERE token_hash = :hash AND used_at IS NULL AND expires_at > :at
       RETURNING ${linkColumns}`,
    ),
  ),
  // The same, for the invitation being accepted: its own link only.
  spendInviteLink: shared(
    `UPDATE one_time_links SET used_at = :at
     WHERE token_hash = :hash AND purpose = 'invite' AND invite_id = :inviteId AND used_at IS NULL AND expires_at > :at`,
  ),
  recentLinks: returning<{ n: number }>()(
    shared('SELECT COUNT(*) AS n FROM one_time_links WHERE email = :email AND purpose = :purpose AND created_at > :since'),
  ),
  spendInviteLinks: shared('UPDATE one_time_links SET used_at = :at WHERE invite_id = :inviteId AND used_at IS NULL'),
  // A pending invite past its expiry is closed, whether or not a read has marked it expired yet.
  acceptInvite: shared(
    `UPDATE invites SET status = 'accepted'
     WHERE id = :inviteId AND workspace_id = :workspaceId AND status = 'pending' AND expires_at > :at`,
  ),

  insertPasskey: shared(
    `INSERT INTO passkeys (id, account_id, credential_id, public_key, counter, transports, name, created_at, last_used_at)
     VALUES (:id, :accountId, :credentialId, :publicKey, :counter, :transports, :name, :createdAt, :lastUsedAt)`,
  ),
  passkeysOf: returning<PasskeyRow>()(
    shared(`SELECT ${passkeyColumns} FROM passkeys WHERE account_id = :accountId ORDER BY created_at, id`),
  ),
  passkeyByCredential: returning<PasskeyRow>()(shared(`SELECT ${passkeyColumns} FROM passkeys WHERE credential_id = :credentialId`)),
  recordPasskeyUse: shared('UPDATE passkeys SET counter = :counter, last_used_at = :at WHERE id = :id'),
  deletePasskey: shared('DELETE FROM passkeys WHERE id = :id AND account_id = :accountId'),

  insertSession: shared(
    `INSERT INTO sessions (id, token_hash, account_id, passkey_id, created_at, last_seen_at, expires_at, ended_at)
     VALUES (:id, :hash, :accountId, :passkeyId, :createdAt, :lastSeenAt, :expiresAt, :endedAt)`,
  ),
  session: returning<SessionRow>()(
    shared(
      `SELECT s.id, s.token_hash, s.account_id, s.passkey_id, s.created_at, s.last_seen_at, s.expires_at, s.ended_at,
         a.email AS account_email, a.name AS account_name, a.created_at AS account_created_at
       FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.token_hash = :hash AND s.ended_at IS NULL`,
    ),
  ),
  touchSession: shared('UPDATE sessions SET last_seen_at = :at WHERE id = :id AND ended_at IS NULL'),
  // The account's most recently seen session that has not ended, reached its end or sat idle too long.
  liveSessionOf: returning<{ id: string; last_seen_at: string }>()(
    shared(
      `SELECT id, last_seen_at FROM sessions
       WHERE account_id = :accountId AND ended_at IS NULL AND expires_at > :now AND last_seen_at > :idleSince
       ORDER BY last_seen_at DESC LIMIT 1`,
    ),
  ),
  endSession: shared('UPDATE sessions SET ended_at = :at WHERE id = :id AND ended_at IS NULL'),
  endSessionsOf: shared('UPDATE sessions SET ended_at = :at WHERE account_id = :accountId AND ended_at IS NULL'),
  endSessionsOfPasskey: shared('UPDATE sessions SET ended_at = :at WHERE passkey_id = :passkeyId AND ended_at IS NULL'),
  // A member removed (TeamStore.removeMember, in its transaction): the sessions of the account with their email.
  endSessionsOfEmail: shared(
    'UPDATE sessions SET ended_at = :at WHERE ended_at IS NULL AND account_id IN (SELECT id FROM accounts WHERE email = :email)',
  ),

  insertMail: shared(
    `INSERT INTO outgoing_mail (id, recipient, subject, text, html, created_at, attempts, next_attempt_at, sent_at)
     VALUES (:id, :to, :subject, :text, :html, :createdAt, :attempts, :nextAttemptAt, :sentAt)`,
  ),
  dueMail: returning<MailRow>()(
    shared(
      `SELECT ${mailColumns} FROM outgoing_mail WHERE sent_at IS NULL AND next_attempt_at <= :now
       ORDER BY created_at, id LIMIT :limit`,
    ),
  ),
  // Guarded like a link's spend: of two senders at once, the second finds the message no longer due.
  claimMail: shared(
    `UPDATE outgoing_mail SET attempts = attempts + 1, next_attempt_at = :retryAt
     WHERE id = :id AND sent_at IS NULL AND next_attempt_at <= :now`,
  ),
  // The text held a one-time link: once sent, it is not kept.
  markMailSent: shared(`UPDATE outgoing_mail SET sent_at = :at, subject = '', text = '', html = '' WHERE id = :id`),

  // The purge (PeopleStore.purgeExpired): at most `limit` rows a statement, oldest first, chosen by key in a subquery,
  // since PostgreSQL's DELETE takes no LIMIT. Each predicate is the range of an index (schema/people-purge.ts).
  purgeLinks: shared(
    `DELETE FROM one_time_links WHERE token_hash IN (
       SELECT token_hash FROM one_time_links WHERE expires_at < :before ORDER BY expires_at LIMIT :limit)`,
  ),
  // A session is never seen after it ends, so one that ended before `before` was last seen before it too: the index
  // on last_seen_at reads the candidates, and passes over at most the sessions left idle less than a day ago.
  purgeSessions: shared(
    `DELETE FROM sessions WHERE id IN (
       SELECT id FROM sessions
       WHERE last_seen_at < :before AND (ended_at < :before OR expires_at < :before OR last_seen_at < :idleBefore)
       ORDER BY last_seen_at LIMIT :limit)`,
  ),
  // Sent only: a message not sent yet, or parked after its last attempt (src/mail/sender.ts), stays.
  purgeSentMail: shared(
    `DELETE FROM outgoing_mail WHERE id IN (
       SELECT id FROM outgoing_mail WHERE sent_at < :before ORDER BY sent_at LIMIT :limit)`,
  ),
};

// Emails are compared and kept in lower case, as members' are (src/store/sql/team.ts).

export const accountParameters = (account: Account): ParametersOf<typeof peopleSql.insertAccount> => ({
  ...account,
  email: account.email.toLowerCase(),
});

export const linkParameters = (link: OneTimeLink): ParametersOf<typeof peopleSql.insertLink> => ({
  ...link,
  email: link.email.toLowerCase(),
});

/** Transports are kept as JSON text in both stores. */
export const passkeyParameters = (passkey: Passkey): ParametersOf<typeof peopleSql.insertPasskey> => ({
  ...passkey,
  transports: JSON.stringify(passkey.transports),
});

export const sessionParameters = (session: Session): ParametersOf<typeof peopleSql.insertSession> => session;

export const mailParameters = (mail: OutgoingMail): ParametersOf<typeof peopleSql.insertMail> => mail;
