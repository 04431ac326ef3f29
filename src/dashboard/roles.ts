import type { Schema } from '../client/schemas.js';

export type MemberRole = Schema<'MemberRole'>;
export type InviteStatus = Schema<'InviteStatus'>;

/** A member's role in words and what it allows (the contract's `MemberRole`): a record, so a new role is named here. */
export const roleWords: Record<MemberRole, { name: string; allows: string }> = {
  admin: { name: 'Admin', allows: 'everything, including keys, team and billing' },
  editor: { name: 'Editor', allows: 'forms, submissions and integrations' },
  viewer: { name: 'Viewer', allows: 'read only' },
};

export const inviteStatusWords: Record<InviteStatus, string> = {
  pending: 'Pending',
  accepted: 'Accepted',
  revoked: 'Revoked',
  expired: 'Expired',
};
