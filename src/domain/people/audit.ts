/** Audit events about people, in each workspace they concern: a member joining, and a member signing in. */
import type { Schema } from '../../contract.js';
import type { Membership } from '../../store/people-store.js';
import type { AuditEventInput } from '../../store/types.js';

/**
 * What a person does on the service's pages is done without a key: the contract's actor for it is `system`, and the
 * target names the member (AuditActor's description).
 */
const pagesActor: Schema<'AuditEvent'>['actor'] = { type: 'system', id: null, name: null };

export function memberEvent(
  type: 'member.joined' | 'member.signed_in',
  workspaceId: string,
  member: { id: string; email: string },
  at: string,
  reason: string | null = null,
): AuditEventInput {
  return {
    workspaceId,
    environment: 'live',
    type,
    actor: pagesActor,
    target: { type: 'member', id: member.id, name: member.email },
    reason,
    at,
  };
}

/** A sign-in is written to the log of every workspace the person belongs to: each one's admins see who came in. */
export async function recordSignIn(
  services: { store: { auditEvents: { record(event: AuditEventInput): Promise<void> } } },
  email: string,
  memberships: readonly Membership[],
  at: string,
  how: 'passkey' | 'link',
): Promise<void> {
  for (const membership of memberships) {
    await services.store.auditEvents.record(
      memberEvent('member.signed_in', membership.workspaceId, { id: membership.memberId, email }, at, `signed in with a ${how}`),
    );
  }
}
