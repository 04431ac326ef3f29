/**
 * What an admin does for their workspace on the account page: invite people (the same invitation the API's
 * `POST /v1/team/invites` makes, emailed the same way). The page checks the role the API's scopes would: only a
 * workspace's admins invite to it.
 */
import type { Schema } from '../../contract.js';
import type { Account, MemberRole } from '../../store/people-store.js';
import { isEmail } from '../email.js';
import { isAppError } from '../errors.js';
import type { Services } from '../services.js';
import { inviteAsMember } from '../team/service.js';
import { membershipsOf, normalEmail } from './accounts.js';
import { PageRefusal } from './refusal.js';

/** `Record` fails to compile when the contract adds a role. */
const roles: Record<MemberRole, true> = { admin: true, editor: true, viewer: true };
const isRole = (value: unknown): value is MemberRole => typeof value === 'string' && Object.hasOwn(roles, value);

export async function inviteFromAccount(
  services: Services,
  account: Account,
  input: { workspace: unknown; email: unknown; role: unknown },
): Promise<Schema<'Invite'>> {
  const memberships = await membershipsOf(services, account);
  const membership = memberships.find((candidate) => candidate.workspaceId === input.workspace);
  if (membership?.role !== 'admin') {
    throw new PageRefusal(403, 'Only admins invite', 'Only an admin of a workspace can invite people to it.');
  }
  const email = typeof input.email === 'string' ? normalEmail(input.email) : '';
  if (!isEmail(email)) {
    throw new PageRefusal(400, 'Not an email address', 'Enter the email address of the person to invite.');
  }
  if (!isRole(input.role)) throw new PageRefusal(400, 'Choose a role', 'Choose admin, editor or viewer.');
  try {
    return await inviteAsMember(
      services,
      { id: membership.workspaceId, name: membership.workspaceName },
      { email, role: input.role },
      account,
    );
  } catch (error) {
    if (isAppError(error) && error.code === 'member_exists') throw new PageRefusal(409, 'Already invited', error.message);
    throw error;
  }
}
