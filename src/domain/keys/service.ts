/**
 * API key use cases: creation (secret shown once, stored as a hash), revocation (audited, immediate),
 * expiry, and the checks on attachment, expiry and allowlist entries.
 */

import type { Schema, ValidationIssue } from '../../contract.js';
import { newId } from '../../ids.js';
import type { PageRequest } from '../../store/page.js';
import { actorOf, assertMayChange, assertWorkspaceWide, type Principal } from '../access.js';
import { inBatches } from '../batches.js';
import { instantOf, unusableTimestampMessage } from '../client-timestamps.js';
import { forbidden, invalidValue, notFound } from '../errors.js';
import { isFirstPartyClient, memberSignedIn } from '../oauth/first-party.js';
import { outboxOf } from '../outbox.js';
import { type Services, timestamp } from '../services.js';
import { attachmentIssues, rethrowAttachmentGone } from './attachment.js';
import { parseAllowlistEntry } from './ip-allowlist.js';
import { generateSecret, hashSecret, secretHint } from './secret.js';

type ApiKey = Schema<'ApiKey'>;

/** Plans on which a key can be attached to one form or folder, in ascending order: `Plan` says `business` or above. */
export const plansWithAttachedKeys: readonly [Schema<'Plan'>, ...Schema<'Plan'>[]] = ['business', 'enterprise'];

export async function createApiKey(
  services: Services,
  principal: Principal,
  input: Schema<'ApiKeyCreate'>,
): Promise<ApiKey & { secret: string }> {
  assertWorkspaceWide(principal, 'manage API keys');
  if (principal.authType === 'oauth_token' && !isFirstPartyClient(principal.oauthClientId ?? '')) {
    // A key would outlive the grant: a leaked hour-long token must not become a permanent credential. The service's own
    // dashboard is the exception: an admin signed in to the service in person makes the key there, as with an admin key.
    throw forbidden(
      'api_key_required',
      'OAuth access tokens of applications cannot create API keys: a key would outlive the grant. Create keys with an admin API key.',
    );
  }
  if (principal.authType === 'oauth_token' && !(await memberSignedIn(services, principal.workspace.id, principal.memberId))) {
    // The dashboard's token makes keys only while the admin behind it is signed in: a forgotten tab cannot.
    throw forbidden('api_key_required', 'The sign-in behind this dashboard has ended: sign in again to create API keys.');
  }
  if (principal.environment === 'test' && input.environment === 'live') {
    throw forbidden('live_resource', 'Test-mode keys can create only test keys.');
  }
  const attachment = input.attachment ?? { type: 'workspace' };
  if (attachment.type !== 'workspace' && !plansWithAttachedKeys.includes(principal.workspace.plan)) {
    const [requiredPlan] = plansWithAttachedKeys;
    throw forbidden(
      'plan_required',
      `Form- and folder-attached keys need the ${requiredPlan} plan or above; this workspace is on ${principal.workspace.plan}.`,
      { required_plan: requiredPlan },
    );
  }
  const issues: ValidationIssue[] = [];
  const now = timestamp(services);
  const expiresAt = input.expires_at === undefined ? undefined : instantOf(input.expires_at);
  if (expiresAt !== undefined && Number.isNaN(expiresAt)) {
    issues.push({ location: 'body', pointer: '/expires_at', code: 'format', message: unusableTimestampMessage });
  } else if (expiresAt !== undefined && expiresAt <= Date.parse(now)) {
    issues.push({ location: 'body', pointer: '/expires_at', code: 'in_the_past', message: 'must be in the future' });
  }
  (input.ip_allowlist ?? []).forEach((entry, index) => {
    if (!parseAllowlistEntry(entry)) {
      issues.push({
        location: 'body',
        pointer: `/ip_allowlist/${index}`,
        code: 'invalid_ip',
        message: `${entry} is not an IPv4/IPv6 address or CIDR range (IPv4 as four decimal numbers, e.g. 203.0.113.7)`,
      });
    }
  });
  issues.push(...(await attachmentIssues(services, principal.workspace.id, attachment, input.environment)));
  if (issues.length > 0) throw invalidValue(issues);

  const secret = generateSecret(input.environment);
  const key: ApiKey = {
    id: newId('key'),
    object: 'api_key',
    name: input.name,
    environment: input.environment,
    scope: input.scope,
    attachment,
    expires_at: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
    ip_allowlist: input.ip_allowlist ?? [],
    status: 'active',
    revoked_at: null,
    revocation_reason: null,
    revocation_cause: null,
    secret_hint: secretHint(secret),
    last_used_at: null,
    created_at: now,
  };
  const created = { ...key, secret };
  await services.store.apiKeys
    .create(
      { key, workspaceId: principal.workspace.id, secretHash: hashSecret(secret) },
      {
        workspaceId: principal.workspace.id,
        environment: key.environment,
        type: 'api_key.created',
        actor: actorOf(principal),
        target: { type: 'api_key', id: key.id, name: key.name },
        reason: null,
        at: now,
      },
      // The replayed response holds the secret: sealed with the Idempotency-Key, it is shown only to that key's holder.
      outboxOf(services, () => ({ returns: created })),
    )
    .catch(rethrowAttachmentGone);
  return created;
}

export async function getApiKey(services: Services, principal: Principal, id: string): Promise<ApiKey> {
  assertWorkspaceWide(principal, 'manage API keys');
  const record = await services.store.apiKeys.get(principal.workspace.id, id);
  if (!record) throw notFound('API key', id);
  return record.key;
}

export function listApiKeys(
  services: Services,
  principal: Principal,
  filter: { status?: ApiKey['status'] | undefined },
  page: PageRequest,
) {
  assertWorkspaceWide(principal, 'manage API keys');
  return services.store.apiKeys.list(principal.workspace.id, filter, page);
}

export async function revokeApiKey(services: Services, principal: Principal, id: string, reason: string | null): Promise<ApiKey> {
  const key = await getApiKey(services, principal, id);
  assertMayChange(principal, { test: key.environment === 'test' });
  if (key.status === 'revoked') return key;
  const at = timestamp(services);
  const revoked = await services.store.apiKeys.revoke(
    id,
    { at, reason, cause: 'user' },
    {
      workspaceId: principal.workspace.id,
      environment: key.environment,
      type: 'api_key.revoked',
      actor: actorOf(principal),
      target: { type: 'api_key', id: key.id, name: key.name },
      reason,
      at,
    },
  );
  return revoked ?? key;
}

/** Revokes a key whose expiry has passed (on first use after it, and from the periodic sweep). */
export async function expireApiKey(services: Services, key: ApiKey, workspaceId: string): Promise<void> {
  const at = timestamp(services);
  await services.store.apiKeys.revoke(
    key.id,
    { at, reason: null, cause: 'expired' },
    {
      workspaceId,
      environment: key.environment,
      type: 'api_key.expired',
      actor: { type: 'system', id: null, name: null },
      target: { type: 'api_key', id: key.id, name: key.name },
      reason: `expired at ${key.expires_at}`,
      at,
    },
  );
}

export const sweepExpiredKeys = (services: Services): Promise<number> =>
  inBatches(100, async (limit) => {
    const expired = await services.store.apiKeys.listExpired(timestamp(services), limit);
    for (const record of expired) await expireApiKey(services, record.key, record.workspaceId);
    return expired.length;
  });
