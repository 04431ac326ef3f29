import type { Schema } from '../../contract.js';

type Member = Schema<'Member'>;
type Invite = Schema<'Invite'>;

export interface MemberRow {
  id: string;
  email: string;
  name: string | null;
  role: Member['role'];
  created_at: string;
}

export interface InviteRow {
  id: string;
  email: string;
  role: Invite['role'];
  status: Invite['status'];
  expires_at: string;
  revoked_at: string | null;
  created_at: string;
}

export const toMember = (row: MemberRow): Member => ({
  id: row.id,
  object: 'member',
  email: row.email,
  name: row.name,
  role: row.role,
  created_at: row.created_at,
});

export const toInvite = (row: InviteRow): Invite => ({
  id: row.id,
  object: 'invite',
  email: row.email,
  role: row.role,
  status: row.status,
  expires_at: row.expires_at,
  revoked_at: row.revoked_at,
  created_at: row.created_at,
});
