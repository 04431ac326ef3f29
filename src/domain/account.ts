import type { Schema } from '../contract.js';
import type { PageRequest } from '../store/page.js';
import { actorOf, assertSecretCaller, assertWorkspaceWide, type Principal } from './access.js';
import { type Services, timestamp } from './services.js';

/**
 * The caller as `GET /me` describes it. An OAuth token's member is read when asked for, not on every request: the
 * grant names them, and removing a member revokes their grants, so a token that authenticated has its member.
 */
export async function describeCaller(services: Services, principal: Principal): Promise<Omit<Schema<'Me'>, 'request_id'>> {
  assertSecretCaller(principal);
  const member = principal.memberId ? await services.store.team.getMember(principal.workspace.id, principal.memberId) : undefined;
  return {
    object: 'me',
    id: principal.id,
    auth_type: principal.authType,
    name: principal.name,
    environment: principal.environment,
    scope: principal.scope,
    attachment: principal.attachment,
    expires_at: principal.expiresAt,
    member: member ? { id: member.id, email: member.email, name: member.name } : null,
    workspace: { id: principal.workspace.id, object: 'workspace', name: principal.workspace.name, plan: principal.workspace.plan },
  };
}

/** "Reset test data": every test-mode row of the workspace goes, nothing live is touched. */
export async function resetTestData(services: Services, principal: Principal): Promise<Schema<'TestDataReset'>['deleted']> {
  assertWorkspaceWide(principal, 'reset test data');
  const at = timestamp(services);
  return services.store.resetTestData(principal.workspace.id, {
    workspaceId: principal.workspace.id,
    environment: principal.environment,
    type: 'test_data.reset',
    actor: actorOf(principal),
    target: { type: 'workspace', id: principal.workspace.id, name: principal.workspace.name },
    reason: null,
    at,
  });
}

export function listAuditEvents(services: Services, principal: Principal, filter: { type?: string | undefined }, page: PageRequest) {
  assertWorkspaceWide(principal, 'read the audit log');
  return services.store.auditEvents.list(principal.workspace.id, filter, page);
}
