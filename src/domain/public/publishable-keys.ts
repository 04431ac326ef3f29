/**
 * Publishable key use cases: keys a web page sends to the public operations. Their value is not a secret (shown
 * whenever the key is read); what guards them is what they can do (fetch a form, submit to it), where from (their
 * `allowed_origins`) and which forms (their attachment). Creation, changes and revocation are audited as for API
 * keys. A key's name and origins may change; its value, environment and attachment never do, so a page that embeds
 * it keeps working with the origins it is given, and a key never reaches forms it did not reach when it was made.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Schema } from '../../contract.js';
import { newId, randomBase62 } from '../../ids.js';
import { isStoreConflict, RecordNotFound } from '../../store/errors.js';
import type { PageRequest } from '../../store/page.js';
import type { AuditEventInput } from '../../store/types.js';
import { actorOf, assertMayChange, assertWorkspaceWide, type Principal } from '../access.js';
import { conflict, forbidden, invalidValue, notFound } from '../errors.js';
import { attachmentIssues, rethrowAttachmentGone } from '../keys/attachment.js';
import { outboxOf } from '../outbox.js';
import { assertIfMatch, type IfMatch, withCompareAndSet } from '../preconditions.js';
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
      keyAudit(principal, 'publishable_key.created', key, now),
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

/** The fields an update may change, named in its audit entry. */
const UPDATABLE = ['name', 'allowed_origins'] as const;

const keyRevoked = (id: string) =>
  conflict('key_revoked', `Publishable key ${id} is revoked; a revoked key cannot be changed. Create a new key.`);

/** The store's refusals of a change to the key `id` (gone, or revoked since it was read), as the client is told them. */
const rethrowRefusal =
  (id: string) =>
  (error: unknown): never => {
    if (error instanceof RecordNotFound) throw notFound('publishable key', id);
    if (isStoreConflict(error, 'key_revoked')) throw keyRevoked(id);
    throw error;
  };

/**
 * Changes the key's name and origins. The origins are checked as on creation, for the key's environment. Without
 * `If-Match` the change applies to the key as it is when written (read again when another change came between).
 */
export async function updatePublishableKey(
  services: Services,
  principal: Principal,
  id: string,
  changes: Schema<'PublishableKeyUpdate'>,
  ifMatch?: IfMatch,
): Promise<PublishableKey> {
  return withCompareAndSet(ifMatch, { resource: 'publishable key', id }, async () => {
    const key = await getPublishableKey(services, principal, id);
    assertMayChange(principal, { test: key.environment === 'test' });
    const expectedTag = assertIfMatch(ifMatch, { resource: 'publishable key', id, representation: key });
    if (key.status === 'revoked') throw keyRevoked(id);
    const next: PublishableKey = {
      ...key,
      name: changes.name ?? key.name,
      allowed_origins: changes.allowed_origins ?? key.allowed_origins,
    };
    const issues = changes.allowed_origins ? checkAllowedOrigins(changes.allowed_origins, key.environment) : [];
    if (issues.length > 0) throw invalidValue(issues);
    const changed = UPDATABLE.filter((field) => !isDeepStrictEqual(next[field], key[field]));
    if (changed.length === 0) return key;
    const audit = keyAudit(principal, 'publishable_key.updated', next, timestamp(services), `changed: ${changed.join(', ')}`);
    return services.store.publishableKeys.update(principal.workspace.id, next, audit, { expectedTag }).catch(rethrowRefusal(id));
  });
}

/** Revokes the key; with `If-Match`, only while it is in a state the client has seen (else 412). */
export async function revokePublishableKey(
  services: Services,
  principal: Principal,
  id: string,
  ifMatch?: IfMatch,
): Promise<PublishableKey> {
  return withCompareAndSet(ifMatch, { resource: 'publishable key', id }, async () => {
    const key = await getPublishableKey(services, principal, id);
    assertMayChange(principal, { test: key.environment === 'test' });
    const readTag = assertIfMatch(ifMatch, { resource: 'publishable key', id, representation: key });
    if (key.status === 'revoked') return key;
    const at = timestamp(services);
    const revoked = await services.store.publishableKeys
      .revoke(id, at, keyAudit(principal, 'publishable_key.revoked', key, at), {
        expectedTag: ifMatch && 'tags' in ifMatch ? readTag : undefined,
      })
      .catch(rethrowRefusal(id));
    return revoked ?? key;
  });
}

function keyAudit(
  principal: Principal,
  type: AuditEventInput['type'],
  key: PublishableKey,
  at: string,
  reason: string | null = null,
): AuditEventInput {
  return {
    workspaceId: principal.workspace.id,
    environment: key.environment,
    type,
    actor: actorOf(principal),
    target: { type: 'publishable_key', id: key.id, name: key.name },
    reason,
    at,
  };
}
