import type { Schema } from '../contract.js';
import type { PageRequest } from '../store/page.js';
import { actorOf, assertSecretCaller, assertWorkspaceWide, type Principal } from './access.js';
import { type Services, timestamp } from './services.js';

export function describeCaller(principal: Principal): Omit<Schema<'Me'>, 'request_id'> {
  assertSecretCaller(principal);
  return {
    object: 'me',
    id: principal.id,
    auth_type: principal.authType,
    name: principal.name,
    environment: principal.environment,
    scope: principal.scope,
    attachment: principal.attachment,
    expires_at: principal.expiresAt,
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
