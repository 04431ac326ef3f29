import type { Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import { isStoreConflict } from '../../store/errors.js';
import type { PageRequest } from '../../store/page.js';
import type { AuditEventInput } from '../../store/types.js';
import { actorOf, assertWorkspaceWide, type Principal } from '../access.js';
import { conflict, forbidden, notFound } from '../errors.js';
import { outboxOf } from '../outbox.js';
import { sendInvitation } from '../people/invitations.js';
import { type Services, timestamp } from '../services.js';
import { rethrowAsNotFound } from '../store-refusals.js';

/** How long an invite stays pending after it is created or sent again (Invite.expires_at, createInvite, resendInvite). */
export const INVITE_LIFETIME_DAYS = 7;
const inviteLifetimeMs = INVITE_LIFETIME_DAYS * 24 * 3600 * 1000;

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
  return invite(
    services,
    principal.workspace,
    input,
    (created) => audit(principal, 'member.invited', { type: 'invite', id: created.id, name: created.email }, created.created_at),
    await inviterOf(services, principal),
    (created) => outboxOf(services, () => ({ returns: created })),
  );
}

/**
 * An invitation made by an admin on the service's pages (the account page), without a key: the audit entry's actor
 * is `system` and its reason names the admin, as for everything a person does there.
 */
export function inviteAsMember(
  services: Services,
  workspace: { id: string; name: string },
  input: Schema<'InviteCreate'>,
  admin: { email: string; name: string | null },
): Promise<Schema<'Invite'>> {
  return invite(
    services,
    workspace,
    input,
    (created) => ({
      workspaceId: workspace.id,
      environment: 'live',
      type: 'member.invited',
      actor: { type: 'system', id: null, name: null },
      target: { type: 'invite', id: created.id, name: created.email },
      reason: `invited by ${admin.email} on the account page`,
      at: created.created_at,
    }),
    admin.name ?? admin.email,
  );
}

/** Stores a pending invite (7 days) with its audit event, then emails it. */
async function invite(
  services: Services,
  workspace: { id: string; name: string },
  input: Schema<'InviteCreate'>,
  auditOf: (invite: Schema<'Invite'>) => AuditEventInput,
  inviter: string | null,
  outbox?: (invite: Schema<'Invite'>) => ReturnType<typeof outboxOf>,
): Promise<Schema<'Invite'>> {
  const now = services.now();
  const created: Schema<'Invite'> = {
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
    .createInvite(workspace.id, created, auditOf(created), outbox?.(created))
    .catch(refuseMemberExists(created.email));
  await sendInvitation(services, workspace, created, inviter);
  return created;
}

const refuseMemberExists = (email: string) => (error: unknown) => {
  if (isStoreConflict(error, 'member_exists'))
    throw conflict('member_exists', `${email} is already a member of this workspace or has a pending invite.`);
  throw error;
};

/** Who the invitation's email says invited them: the member behind an OAuth token, or else the key's name. */
async function inviterOf(services: Services, principal: Principal): Promise<string | null> {
  const member = principal.memberId ? await services.store.team.getMember(principal.workspace.id, principal.memberId) : undefined;
  return member ? (member.name ?? member.email) : principal.name;
}

/**
 * Sends the invitation again with a new link (the invitation's own step spends the earlier ones): a pending invite
 * stays pending, an expired one is pending again, each for a full lifetime from now. An accepted or revoked invite is
 * closed. The renewal is answered to an Idempotency-Key after the email is queued, not inside the renewal's
 * transaction: a retry after a failure in between renews and sends again, which is what the caller asked for.
 */
export async function resendInvite(services: Services, principal: Principal, id: string): Promise<Schema<'Invite'>> {
  assertLive(principal);
  const now = services.now();
  const at = now.toISOString();
  const expiresAt = new Date(now.getTime() + inviteLifetimeMs).toISOString();
  const found = await services.store.team.getInvite(principal.workspace.id, id, at);
  if (!found) throw notFound('invite', id);
  const renewed = await services.store.team
    .renewInvite(principal.workspace.id, id, expiresAt, audit(principal, 'invite.resent', { type: 'invite', id, name: found.email }, at))
    .catch((error: unknown) => {
      if (isStoreConflict(error, 'invite_closed'))
        throw conflict('invite_closed', `Invite ${id} was accepted or revoked and cannot be sent again; create a new invite.`);
      return refuseMemberExists(found.email)(error);
    });
  if (!renewed) throw notFound('invite', id);
  await sendInvitation(services, principal.workspace, renewed, await inviterOf(services, principal));
  return renewed;
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
