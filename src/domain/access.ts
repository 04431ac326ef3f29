/**
 * Who is calling and what they may reach. Authentication produces a `Principal`; domain operations ask it
 * the questions below, so attachment and test-mode rules live in one place and not in each handler.
 */
import type { Attachment, Environment, Plan, Schema, Scope } from '../contract.js';
import type { WorkspaceRateLimits } from '../store/types.js';
import { forbidden, notFound } from './errors.js';

export interface Principal {
  authType: 'api_key' | 'oauth_token';
  /** The key's (or token's) id: audit events and idempotency keys belong to it. */
  id: string;
  name: string | null;
  /** `rateLimits`: an operator's limits for the workspace (Enterprise), read with it on every request; null for the standard ones. */
  workspace: { id: string; name: string; plan: Plan; rateLimits: WorkspaceRateLimits | null };
  environment: Environment;
  scope: Scope;
  attachment: Attachment;
  expiresAt: string | null;
  /**
   * The lasting credential behind the request: the API key, or for OAuth the grant, whose access tokens
   * change every hour. Idempotency-Keys and the per-key rate limit belong to it, so a retry after a token
   * refresh still finds the first request, and a refresh does not buy a fresh request budget.
   */
  credentialId: string;
}

/**
 * The environments whose definitions (forms, folders, integrations) activity in `environment` reaches: the
 * sandbox works on the live definitions as well as its own, so test keys read live forms and test-mode events
 * also reach the live integrations (as the sandbox's clone of them, always mocked).
 */
export const definitionEnvironments = (environment: Environment): readonly Environment[] =>
  environment === 'test' ? ['live', 'test'] : ['live'];

export const actorOf = (principal: Principal): Schema<'AuditEvent'>['actor'] => ({
  type: principal.authType,
  id: principal.id,
  name: principal.name,
});

/** A form the caller's environment cannot see does not exist for it: 404, never a hint that it exists. */
export function assertFormVisible(principal: Principal, form: { id: string; test: boolean; folder_id: string | null }): void {
  if (form.test && principal.environment === 'live') throw notFound('form', form.id);
  const { attachment } = principal;
  if (attachment.type === 'form' && attachment.form_id !== form.id) {
    throw forbidden('form_not_attached', 'This key is attached to another form and cannot reach this one.');
  }
  if (attachment.type === 'folder' && attachment.folder_id !== form.folder_id) {
    throw forbidden('form_not_attached', 'This key is attached to a folder that does not hold this form.');
  }
}

/** Test keys may change only what the sandbox owns; live resources are read-only to them. */
export function assertMayChange(principal: Principal, resource: { test: boolean }): void {
  if (principal.environment === 'test' && !resource.test) {
    throw forbidden('live_resource', 'Test-mode keys cannot change live resources.');
  }
}

/**
 * Keys attached to one form or folder reach that form or folder only: workspace administration (API keys,
 * team, audit log, usage, test data, transfers, erasure) needs a workspace key, whatever the scope. Otherwise an admin key
 * attached to one form could mint itself a workspace-wide key.
 */
export function assertWorkspaceWide(principal: Principal, what: string): void {
  if (principal.attachment.type !== 'workspace') {
    throw forbidden('form_not_attached', `This key is attached to a ${principal.attachment.type} and cannot ${what}.`);
  }
}
