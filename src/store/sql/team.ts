import type { Schema } from '../../contract.js';
import { type ParametersOf, shared } from './statement.js';

export const teamSql = {
  // Invites past their expiry are reported as expired; the rows are brought up to date when read.
  expireInvites: shared(
    `UPDATE invites SET status = 'expired' WHERE workspace_id = :workspaceId AND status = 'pending' AND expires_at <= :now`,
  ),
  getMember: shared('SELECT * FROM members WHERE id = :id AND workspace_id = :workspaceId'),
  insertMember: shared(
    'INSERT INTO members (id, workspace_id, email, name, role, created_at) VALUES (:id, :workspaceId, :email, :name, :role, :createdAt)',
  ),
  deleteMember: shared('DELETE FROM members WHERE id = :id'),
  memberWithEmail: shared('SELECT 1 FROM members WHERE workspace_id = :workspaceId AND email = :email'),
  getInvite: shared('SELECT * FROM invites WHERE id = :id AND workspace_id = :workspaceId'),
  pendingInviteWithEmail: shared(`SELECT 1 FROM invites WHERE workspace_id = :workspaceId AND email = :email AND status = 'pending'`),
  insertInvite: shared(
    `INSERT INTO invites (id, workspace_id, email, role, status, expires_at, created_at)
     VALUES (:id, :workspaceId, :email, :role, 'pending', :expiresAt, :createdAt)`,
  ),
  // A renewal's read: PostgreSQL locks the invite, so a revocation or an acceptance waits for the renewal (or the
  // renewal for them) and the status checked is the status renewed.
  getInviteForRenewal: shared('SELECT * FROM invites WHERE id = :id AND workspace_id = :workspaceId', { postgresLock: 'FOR UPDATE' }),
  otherPendingInviteWithEmail: shared(
    `SELECT 1 FROM invites WHERE workspace_id = :workspaceId AND email = :email AND status = 'pending' AND id <> :id`,
  ),
  // Pending again (an expired invite) or still (a pending one), from now on for the invite's lifetime.
  renewInvite: shared(
    `UPDATE invites SET status = 'pending', expires_at = :expiresAt
     WHERE id = :id AND workspace_id = :workspaceId AND status IN ('pending', 'expired')`,
  ),
  revokeInvite: shared(
    `UPDATE invites SET status = 'revoked', revoked_at = :at WHERE id = :id AND workspace_id = :workspaceId AND status = 'pending'`,
  ),
};

// Emails are compared and kept in lower case.
export const memberParameters = (workspaceId: string, member: Schema<'Member'>): ParametersOf<typeof teamSql.insertMember> => ({
  id: member.id,
  workspaceId,
  email: member.email.toLowerCase(),
  name: member.name,
  role: member.role,
  createdAt: member.created_at,
});

/** The new invite's values, which also find a member or a pending invite with its email. */
export const inviteParameters = (workspaceId: string, invite: Schema<'Invite'>): ParametersOf<typeof teamSql.insertInvite> => ({
  id: invite.id,
  workspaceId,
  email: invite.email.toLowerCase(),
  role: invite.role,
  expiresAt: invite.expires_at,
  createdAt: invite.created_at,
});
