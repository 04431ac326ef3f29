/**
 * Invitations as a person meets them: an email with a one-time link (as long-lived as the invite), accepted at the
 * link's page by the invited address's account. Opening the link proves the address, as a sign-in link does, so
 * accepting also signs the person in (and the account page then asks them to add a passkey).
 */
import type { Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import { invitationMessage } from '../../mail/messages.js';
import { isStoreConflict } from '../../store/errors.js';
import type { Account, OneTimeLink } from '../../store/people-store.js';
import { publicBaseUrlOf, type Services } from '../services.js';
import { ensureAccount } from './accounts.js';
import { memberEvent } from './audit.js';
import { outgoingMail } from './links.js';
import { PageRefusal } from './refusal.js';
import { hashToken, isOneTimeToken, newOneTimeToken } from './tokens.js';

export const invitationPath = '/invites/accept';

/**
 * Queues the invitation's email with a new link; earlier links of the invite stop working (a resend replaces them).
 * `inviter` is the name the email gives for who invited them (a member's name or email, or the key's name).
 */
export async function sendInvitation(
  services: Services,
  workspace: { id: string; name: string },
  invite: Schema<'Invite'>,
  inviter: string | null,
): Promise<void> {
  const now = services.now().toISOString();
  await services.store.people.spendInviteLinks(invite.id, now);
  const token = newOneTimeToken();
  const link: OneTimeLink = {
    hash: hashToken(token),
    purpose: 'invite',
    email: invite.email.toLowerCase(),
    workspaceId: workspace.id,
    inviteId: invite.id,
    expiresAt: invite.expires_at,
    createdAt: now,
    usedAt: null,
  };
  const url = new URL(invitationPath, `${publicBaseUrlOf(services)}/`);
  url.searchParams.set('token', token);
  const message = invitationMessage({
    to: link.email,
    workspaceName: workspace.name,
    role: invite.role,
    inviter,
    url: url.toString(),
    expiresAt: invite.expires_at,
  });
  await services.store.people.createLink(link, outgoingMail(services, message));
  services.nudgeMail?.();
}

export interface OpenInvitation {
  email: string;
  workspace: { id: string; name: string };
  role: Schema<'Invite'>['role'];
}

const closed = () =>
  new PageRefusal(
    410,
    'This invitation is no longer valid',
    'It was accepted, revoked or replaced by a newer email, or it expired. Ask an admin of the workspace to send it again.',
  );

async function openLink(services: Services, token: unknown): Promise<{ link: OneTimeLink; hash: Buffer }> {
  if (!isOneTimeToken(token)) throw closed();
  const hash = hashToken(token);
  const link = await services.store.people.findLink(hash);
  const now = services.now().toISOString();
  if (link?.purpose !== 'invite' || link.usedAt !== null || link.expiresAt <= now || !link.workspaceId || !link.inviteId) throw closed();
  return { link, hash };
}

/** What the invitation's page shows before its button accepts it. */
export async function openInvitation(services: Services, token: unknown): Promise<OpenInvitation> {
  const { link } = await openLink(services, token);
  const workspaceId = link.workspaceId as string;
  const [invite, workspace] = await Promise.all([
    services.store.team.getInvite(workspaceId, link.inviteId as string, services.now().toISOString()),
    services.store.workspaces.get(workspaceId),
  ]);
  if (invite?.status !== 'pending' || !workspace) throw closed();
  return { email: link.email, workspace: { id: workspace.id, name: workspace.name }, role: invite.role };
}

/**
 * Accepts the invitation: the invited address's account (made now if needed) becomes a member with the invite's role.
 * A person signed in as another address is refused: an invitation is for the address it was sent to. `newcomer` says
 * whether the account was made now: only then may the link sign the person in (see the invitation page's route).
 */
export async function acceptInvitation(
  services: Services,
  token: unknown,
  signedIn: Account | undefined,
): Promise<{ account: Account; newcomer: boolean }> {
  const { link, hash } = await openLink(services, token);
  if (signedIn && signedIn.email !== link.email) {
    throw new PageRefusal(
      403,
      'This invitation is for someone else',
      `It was sent to ${link.email}, and you are signed in as ${signedIn.email}. Sign out, then open the link again.`,
    );
  }
  const opened = await openInvitation(services, token);
  // A person who had no account yet has no passkey either: the link, which proves the address, is what signs them in.
  const existing = signedIn ?? (await services.store.people.findAccountByEmail(link.email));
  const account = existing ?? (await ensureAccount(services, link.email));
  const at = services.now().toISOString();
  const member: Schema<'Member'> = {
    id: newId('mem'),
    object: 'member',
    email: account.email,
    name: account.name,
    role: opened.role,
    created_at: at,
  };
  try {
    await services.store.people.acceptInvite({
      workspaceId: opened.workspace.id,
      inviteId: link.inviteId as string,
      linkHash: hash,
      account,
      member,
      audit: memberEvent('member.joined', opened.workspace.id, member, at, 'accepted an invitation'),
      at,
    });
  } catch (error) {
    if (isStoreConflict(error, 'member_exists')) {
      throw new PageRefusal(409, 'You are already a member', `${account.email} is already a member of ${opened.workspace.name}.`);
    }
    if (isStoreConflict(error, 'link_spent') || isStoreConflict(error, 'invite_closed')) throw closed();
    throw error;
  }
  return { account, newcomer: existing === undefined };
}
