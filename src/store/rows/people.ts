import type { Plan } from '../../contract.js';
import type { Account, LinkPurpose, MemberRole, Membership, OneTimeLink, OutgoingMail, Passkey, Session } from '../people-store.js';
import { fromJson } from './json.js';

/** The rows of the people's tables as both stores return them (PostgreSQL's timestamps already ISO text). */
export interface AccountRow {
  id: string;
  email: string;
  name: string | null;
  created_at: string;
}

export interface MembershipRow {
  member_id: string;
  workspace_id: string;
  workspace_name: string;
  plan: Plan;
  role: MemberRole;
  joined_at: string;
}

export interface PasskeyRow {
  id: string;
  account_id: string;
  credential_id: string;
  public_key: Buffer;
  counter: number;
  /** A JSON array as text, in both stores. */
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface LinkRow {
  token_hash: Buffer;
  purpose: LinkPurpose;
  email: string;
  workspace_id: string | null;
  invite_id: string | null;
  expires_at: string;
  created_at: string;
  used_at: string | null;
}

/** A session with its account's columns (aliased `account_…`), as `findSession` selects them. */
export interface SessionRow {
  id: string;
  token_hash: Buffer;
  account_id: string;
  passkey_id: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ended_at: string | null;
  account_email: string;
  account_name: string | null;
  account_created_at: string;
}

export interface MailRow {
  id: string;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  created_at: string;
  attempts: number;
  next_attempt_at: string;
  sent_at: string | null;
}

export const toAccount = (row: AccountRow): Account => ({ id: row.id, email: row.email, name: row.name, createdAt: row.created_at });

export const toMembership = (row: MembershipRow): Membership => ({
  memberId: row.member_id,
  workspaceId: row.workspace_id,
  workspaceName: row.workspace_name,
  plan: row.plan,
  role: row.role,
  joinedAt: row.joined_at,
});

export const toPasskey = (row: PasskeyRow): Passkey => ({
  id: row.id,
  accountId: row.account_id,
  credentialId: row.credential_id,
  publicKey: row.public_key,
  counter: row.counter,
  transports: fromJson<string[]>(row.transports),
  name: row.name,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

export const toLink = (row: LinkRow): OneTimeLink => ({
  hash: row.token_hash,
  purpose: row.purpose,
  email: row.email,
  workspaceId: row.workspace_id,
  inviteId: row.invite_id,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  usedAt: row.used_at,
});

export const toSession = (row: SessionRow): { session: Session; account: Account } => ({
  session: {
    id: row.id,
    hash: row.token_hash,
    accountId: row.account_id,
    passkeyId: row.passkey_id,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
    endedAt: row.ended_at,
  },
  account: { id: row.account_id, email: row.account_email, name: row.account_name, createdAt: row.account_created_at },
});

export const toMail = (row: MailRow): OutgoingMail => ({
  id: row.id,
  to: row.recipient,
  subject: row.subject,
  text: row.text,
  html: row.html,
  createdAt: row.created_at,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  sentAt: row.sent_at,
});
