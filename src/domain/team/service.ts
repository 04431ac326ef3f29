import type { Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import { isStoreConflict } from '../../store/errors.js';
import type { PageRequest } from '../../store/page.js';
import type { AuditEventInput } from '../../store/types.js';
import { actorOf, assertWorkspaceWide, type Principal } from '../access.js';
import { conflict, forbidden, notFound } from '../errors.js';
import { outboxOf } from '../outbox.js';
import { type Services, timestamp } from '../services.js';
import { rethrowAsNotFound } from '../store-refusals.js';

const inviteLifetimeMs = 7 * 24 * 3600 * 1000;

/** The team is real, not sandboxed: test-mode keys may read it but not change it. */
function assertLive(principal: Principal): void {
  assertWorkspaceWide(principal, 'manage the team');
  if (principal.environment === 'test') throw forbidden('live_resource', 'Test-mode keys cannot change the team.');
}

const audit = (principal: Principal, type: AuditEventInput['type'], target: AuditEventInput['target'], at: string): AuditEventInput => ({
  workspaceId: principal.workspace.id,
  environment: principal.environment,
  type,
  actor: actorOf(principal),
  target,
  reason: null,
  at,
});

export function listMembers(services: Services, principal: Principal, page: PageRequest) {
  assertWorkspaceWide(principal, 'read the team');
  return services.store.team.listMembers(principal.workspace.id, page);
}

export async function removeMember(services: Services, principal: Principal, id: string): Promise<void> {
  assertLive(principal);
  const member = await services.store.team.getMember(principal.workspace.id, id);
  if (!member) throw notFound('member', id);
  await services.store.team
    .removeMember(
      principal.workspace.id,
      id,
      audit(principal, 'member.removed', { type: 'member', id, name: member.email }, timestamp(services)),
    )
    .catch((error: unknown) => {
      if (isStoreConflict(error, 'last_admin')) throw conflict('last_admin', "The workspace's only admin cannot be removed.");
      rethrowAsNotFound(error);
    });
}

export function listInvites(
  services: Services,
  principal: Principal,
  filter: { status?: Schema<'Invite'>['status'] | undefined },
  page: PageRequest,
) {
  assertWorkspaceWide(principal, 'read the team');
  return services.store.team.listInvites(principal.workspace.id, filter, page, timestamp(services));
}

export async function createInvite(services: Services, principal: Principal, input: Schema<'InviteCreate'>): Promise<Schema<'Invite'>> {
  assertLive(principal);
  const now = services.now();
  const invite: Schema<'Invite'> = {
    id: newId('inv'),
    object: 'invite',
    email: input.email.toLowerCase(),
    role: input.role,
    status: 'pending',
    expires_at: new Date(now.getTime() + inviteLifetimeMs).toISOString(),
    revoked_at: null,
    created_at: now.toISOString(),
  };
  await services.store.team
    .createInvite(
      principal.workspace.id,
      invite,
      audit(principal, 'member.invited', { type: 'invite', id: invite.id, name: invite.email }, invite.created_at),
      outboxOf(services, () => ({ returns: invite })),
    )
    .catch((error: unknown) => {
      if (isStoreConflict(error, 'member_exists'))
        throw conflict('member_exists', `${invite.email} is already a member of this workspace or has a pending invite.`);
      throw error;
    });
  return invite;
}

export async function revokeInvite(services: Services, principal: Principal, id: string): Promise<Schema<'Invite'>> {
  assertLive(principal);
  const invite = await services.store.team.getInvite(principal.workspace.id, id, timestamp(services));
  if (!invite) throw notFound('invite', id);
  const at = timestamp(services);
  const revoked = await services.store.team.revokeInvite(
    principal.workspace.id,
    id,
    at,
    audit(principal, 'invite.revoked', { type: 'invite', id, name: invite.email }, at),
  );
  return revoked ?? invite;
}
