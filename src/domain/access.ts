/**
 * Who is calling and what they may reach. Authentication produces a `Principal`; domain operations ask it
 * the questions below, so attachment and test-mode rules live in one place and not in each handler.
 */
import type { Attachment, Environment, Plan, Schema, Scope } from '../contract.js';
import type { Workspace, WorkspaceRateLimits } from '../store/types.js';
import { forbidden, notFound } from './errors.js';

export interface Principal {
  /** `publishable_key`: a web page's key, which reaches the public operations only (src/domain/public/). */
  authType: 'api_key' | 'oauth_token' | 'publishable_key';
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
  /**
   * For an OAuth token whose grant a member approved on the consent page: that member (`mem_…`), whom `GET /me`
   * names. Absent or null for keys and for grants the operator's command made.
   */
  memberId?: string | null | undefined;
  /** For an OAuth token: the client its grant was made for (the dashboard's is first-party: oauth/first-party.ts). */
  oauthClientId?: string | undefined;
  /**
   * For a publishable key: the key, the secret that signs the `started_token`s of the forms it fetches, and whether
   * it is the key of the service's hosted pages (allowed on the service's own origin, for hosted forms only).
   */
  publishable?: { key: Schema<'PublishableKey'>; tokenSecret: Buffer; hostedPage: boolean } | undefined;
}

/** The workspace as every kind of credential's principal carries it. */
export const principalWorkspace = (workspace: Workspace): Principal['workspace'] => ({
  id: workspace.id,
  name: workspace.name,
  plan: workspace.plan,
  rateLimits: workspace.rateLimits ?? null,
});

/** A caller of the secret-key operations: publishable keys are refused before any of them runs (./keys/authenticate.ts). */
export type SecretPrincipal = Principal & { authType: 'api_key' | 'oauth_token' };

export const publishableKeyNotAllowed = () =>
  forbidden(
    'publishable_key_not_allowed',
    'Publishable keys (svc_pub_…) reach only the public operations (/v1/public/…); use a secret API key.',
  );

export function assertSecretCaller(principal: Principal): asserts principal is SecretPrincipal {
  if (principal.authType === 'publishable_key') throw publishableKeyNotAllowed();
}

/**
 * The environments whose definitions (forms, folders, integrations) activity in `environment` reaches: the
 * sandbox works on the live definitions as well as its own, so test keys read live forms and test-mode events
 * also reach the live integrations (as the sandbox's clone of them, always mocked).
 */
export const definitionEnvironments = (environment: Environment): readonly Environment[] =>
  environment === 'test' ? ['live', 'test'] : ['live'];

export function actorOf(principal: Principal): Schema<'AuditEvent'>['actor'] {
  assertSecretCaller(principal);
  return { type: principal.authType, id: principal.id, name: principal.name };
}

/** Whether the caller's attachment holds the form: its one form, a form of its folder, any form for a workspace key. */
export function attachmentReaches(principal: Principal, form: { id: string; folder_id: string | null }): boolean {
  const { attachment } = principal;
  if (attachment.type === 'form') return attachment.form_id === form.id;
  if (attachment.type === 'folder') return attachment.folder_id === form.folder_id;
  return true;
}

/** A form the caller's environment cannot see does not exist for it: 404, never a hint that it exists. */
export function assertFormVisible(principal: Principal, form: { id: string; test: boolean; folder_id: string | null }): void {
  if (form.test && principal.environment === 'live') throw notFound('form', form.id);
  if (!attachmentReaches(principal, form)) {
    throw forbidden(
      'form_not_attached',
      principal.attachment.type === 'form'
        ? 'This key is attached to another form and cannot reach this one.'
        : 'This key is attached to a folder that does not hold this form.',
    );
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
