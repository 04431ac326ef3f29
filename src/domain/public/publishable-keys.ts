/**
 * Publishable key use cases: keys a web page sends to the public operations. Their value is not a secret (shown
 * whenever the key is read); what guards them is what they can do (fetch a form, submit to it), where from (their
 * `allowed_origins`) and which forms (their attachment). Creation and revocation are audited as for API keys.
 */
import type { Schema } from '../../contract.js';
import { newId, randomBase62 } from '../../ids.js';
import type { PageRequest } from '../../store/page.js';
import { actorOf, assertMayChange, assertWorkspaceWide, type Principal } from '../access.js';
import { forbidden, invalidValue, notFound } from '../errors.js';
import { attachmentIssues, rethrowAttachmentGone } from '../keys/attachment.js';
import { outboxOf } from '../outbox.js';
import { type Services, timestamp } from '../services.js';
import { checkAllowedOrigins } from './allowed-origins.js';
import { generateTokenSecret } from './started-token.js';

type PublishableKey = Schema<'PublishableKey'>;

/** `svc_pub_live_` / `svc_pub_test_` and 24 base62 characters: unguessable, though it is not a secret (PublishableKeyValue). */
export const publishableKeyPattern = /^svc_pub_(live|test)_[0-9A-Za-z]{24}$/;

const generateValue = (environment: Schema<'Environment'>): string => `svc_pub_${environment}_${randomBase62(24)}`;

export async function createPublishableKey(
  services: Services,
  principal: Principal,
  input: Schema<'PublishableKeyCreate'>,
): Promise<PublishableKey> {
  assertWorkspaceWide(principal, 'manage publishable keys');
  if (principal.environment === 'test' && input.environment === 'live') {
    throw forbidden('live_resource', 'Test-mode keys can create only test keys.');
  }
  const attachment = input.attachment ?? { type: 'workspace' };
  const issues = [
    ...checkAllowedOrigins(input.allowed_origins, input.environment),
    ...(await attachmentIssues(services, principal.workspace.id, attachment, input.environment)),
  ];
  if (issues.length > 0) throw invalidValue(issues);

  const now = timestamp(services);
  const key: PublishableKey = {
    id: newId('pk'),
    object: 'publishable_key',
    name: input.name,
    environment: input.environment,
    value: generateValue(input.environment),
    allowed_origins: input.allowed_origins,
    attachment,
    status: 'active',
    revoked_at: null,
    last_used_at: null,
    created_at: now,
  };
  await services.store.publishableKeys
    .create(
      { key, workspaceId: principal.workspace.id, tokenSecret: generateTokenSecret() },
      {
        workspaceId: principal.workspace.id,
        environment: key.environment,
        type: 'publishable_key.created',
        actor: actorOf(principal),
        target: { type: 'publishable_key', id: key.id, name: key.name },
        reason: null,
        at: now,
      },
      outboxOf(services, () => ({ returns: key })),
    )
    .catch(rethrowAttachmentGone);
  return key;
}

export async function getPublishableKey(services: Services, principal: Principal, id: string): Promise<PublishableKey> {
  assertWorkspaceWide(principal, 'manage publishable keys');
  const record = await services.store.publishableKeys.get(principal.workspace.id, id);
  if (!record) throw notFound('publishable key', id);
  return record.key;
}

export function listPublishableKeys(services: Services, principal: Principal, page: PageRequest) {
  assertWorkspaceWide(principal, 'manage publishable keys');
  return services.store.publishableKeys.list(principal.workspace.id, page);
}

export async function revokePublishableKey(services: Services, principal: Principal, id: string): Promise<PublishableKey> {
  const key = await getPublishableKey(services, principal, id);
  assertMayChange(principal, { test: key.environment === 'test' });
  if (key.status === 'revoked') return key;
  const at = timestamp(services);
  const revoked = await services.store.publishableKeys.revoke(id, at, {
    workspaceId: principal.workspace.id,
    environment: key.environment,
    type: 'publishable_key.revoked',
    actor: actorOf(principal),
    target: { type: 'publishable_key', id: key.id, name: key.name },
    reason: null,
    at,
  });
  return revoked ?? key;
}
