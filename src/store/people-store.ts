/**
 * Persistence of people: accounts (a person, by email), their passkeys, their sessions, the one-time links that sign
 * them in or carry an invitation, and the mail that sends those links. A person's memberships are the `members`
 * rows with their account's email (one per workspace), so a member invited before the person had an account is
 * theirs from the first sign-in. Links and sessions are stored only as SHA-256 hashes of their tokens.
 *
 * Written once for both stores (src/store/people/): each statement once in src/store/sql/people.ts, each
 * transaction once as a procedure that the SQLite and the PostgreSQL driver run (src/store/sql/procedure.ts).
 */
import type { Plan, Schema } from '../contract.js';
import type { AuditEventInput } from './audit-event-input.js';

export type MemberRole = Schema<'MemberRole'>;

export interface Account {
  /** `acct_…` */
  id: string;
  /** Lower case; unique. */
  email: string;
  name: string | null;
  createdAt: string;
}

/** One workspace a person belongs to: their `members` row there, and the workspace as a picker shows it. */
export interface Membership {
  memberId: string;
  workspaceId: string;
  workspaceName: string;
  plan: Plan;
  role: MemberRole;
  joinedAt: string;
}

export interface Passkey {
  /** `pk_…` */
  id: string;
  accountId: string;
  /** The WebAuthn credential id, base64url; unique. */
  credentialId: string;
  /** The COSE public key, as the authenticator registered it. */
  publicKey: Buffer;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number;
  /** `AuthenticatorTransportFuture` values the browser reported at registration. */
  transports: string[];
  /** What the person calls it ("Passkey added 6 Dec 2026" unless renamed). */
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/**
 * `sign_in`: a link that signs a person in (and lets them register a passkey); `invite`: an invitation's link;
 * `challenge`: a WebAuthn challenge, which is a one-time token too (its email is '' when the person is not yet known).
 */
export type LinkPurpose = 'sign_in' | 'invite' | 'challenge';

export interface OneTimeLink {
  /** SHA-256 of the 256-bit token that the link carries; the token itself is never stored. */
  hash: Buffer;
  purpose: LinkPurpose;
  /** Whom the link was sent to (lower case): the account that signs in, or the invited address. */
  email: string;
  /** For an invitation: the workspace and the invite. */
  workspaceId: string | null;
  inviteId: string | null;
  expiresAt: string;
  createdAt: string;
  usedAt: string | null;
}

export interface Session {
  /** `ses_…`, for logs and the account page; the cookie carries a token whose hash is `hash`. */
  id: string;
  hash: Buffer;
  accountId: string;
  /** The passkey that signed in, null for a session begun by a one-time link; its removal ends the session. */
  passkeyId: string | null;
  createdAt: string;
  /** Renewed as the person uses it (at most once a minute); idle past the idle lifetime ends it. */
  lastSeenAt: string;
  /** The absolute end, fixed at sign-in. */
  expiresAt: string;
  endedAt: string | null;
}

/** A message on its way out. Its text holds a one-time link, so the row is emptied once it has been sent. */
export interface OutgoingMail {
  /** `mail_…` */
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  createdAt: string;
  attempts: number;
  nextAttemptAt: string;
  sentAt: string | null;
}

export interface InviteAcceptance {
  workspaceId: string;
  inviteId: string;
  /** The invitation link's hash: spent in the same transaction. */
  linkHash: Buffer;
  account: Account;
  /** The new `members` row (email = the account's, role = the invite's). */
  member: Schema<'Member'>;
  audit: AuditEventInput;
  at: string;
}

/** What `purgeExpired` deletes: rows whose end came before these times. */
export interface PeoplePurge {
  /** Links that expired (used or not), sessions that ended or reached their absolute end, and mail sent before this. */
  before: string;
  /** Sessions last seen before this (their idle end, the idle lifetime after it, came before `before`). */
  idleBefore: string;
}

export interface PeopleStore {
  getAccount(id: string): Promise<Account | undefined>;
  findAccountByEmail(email: string): Promise<Account | undefined>;
  /** The account with `account.email`, created from `account` when there is none (of two at once, one is made). */
  ensureAccount(account: Account): Promise<Account>;
  /** The workspaces the person belongs to, oldest membership first. */
  memberships(email: string): Promise<Membership[]>;

  /** Stores a link and, in the same transaction, the message that carries it (when given). */
  createLink(link: OneTimeLink, mail?: OutgoingMail): Promise<void>;
  /** The link as it is (used or not, expired or not); undefined when unknown. */
  findLink(hash: Buffer): Promise<OneTimeLink | undefined>;
  /** Spends a link that is unused and unexpired at `at`, and returns it; undefined otherwise (of two at once, one spends it). */
  spendLink(hash: Buffer, at: string): Promise<OneTimeLink | undefined>;
  /** How many links of `purpose` were made for `email` after `since`, used or not. */
  recentLinks(email: string, purpose: LinkPurpose, since: string): Promise<number>;
  /** Spends every unused link of an invite (a resend replaces them; a revoked invite's links stop working). */
  spendInviteLinks(inviteId: string, at: string): Promise<void>;
  /**
   * Spends the link, makes the account when there is none with its email, makes the member, marks the invite
   * accepted and writes the audit event, atomically; on a conflict nothing is changed.
   * `StoreConflict('link_spent')` when the link is used or expired, `('invite_closed')` when the invite is no longer
   * pending (accepted, revoked, expired), `('member_exists')` when the email is already a member.
   */
  acceptInvite(acceptance: InviteAcceptance): Promise<void>;

  /** `StoreConflict('passkey_exists')` when its credential id is registered already (to this account or another). */
  addPasskey(passkey: Passkey): Promise<void>;
  listPasskeys(accountId: string): Promise<Passkey[]>;
  findPasskey(credentialId: string): Promise<Passkey | undefined>;
  /** Records a sign-in with the passkey: its new counter and when. */
  recordPasskeyUse(id: string, counter: number, at: string): Promise<void>;
  /** Removes one of the account's passkeys and ends the sessions it began; false when it is not theirs. */
  removePasskey(accountId: string, id: string, at: string): Promise<boolean>;

  createSession(session: Session): Promise<void>;
  /** The session and its account when the session has not ended (the caller checks its lifetimes). */
  findSession(hash: Buffer): Promise<{ session: Session; account: Account } | undefined>;
  touchSession(id: string, at: string): Promise<void>;
  /** The account's session that is still live at `now` (not ended, before its end, seen after `idleSince`), if any. */
  liveSessionOf(accountId: string, now: string, idleSince: string): Promise<{ id: string; lastSeenAt: string } | undefined>;
  endSession(id: string, at: string): Promise<void>;
  /** Ends every session of the account (a member removed from a workspace). */
  endSessionsOf(accountId: string, at: string): Promise<void>;

  /** Messages due at `now` and not sent, oldest first, at most `limit`. */
  dueMail(now: string, limit: number): Promise<OutgoingMail[]>;
  /**
   * Claims a due message for one sender: bumps its attempts and moves its next attempt to `retryAt`, only if it is
   * still due at `now` and unsent; false when another sender claimed it first.
   */
  claimMail(id: string, now: string, retryAt: string): Promise<boolean>;
  /** Marks it sent and empties its subject, text and html (they held a link). */
  markMailSent(id: string, at: string): Promise<void>;

  /**
   * Deletes links, sessions and sent mail that ended before the cutoffs (unsent and parked mail stays), at most
   * `limit` rows in all, oldest first (links, then sessions, then mail); returns how many it deleted.
   */
  purgeExpired(cutoffs: PeoplePurge, limit: number): Promise<number>;
}
