/**
 * Integration use cases. Integrations are like definitions: test-mode keys see the live ones as well as the
 * sandbox's own and change only their own. Deliveries (and so logs and dispatches) belong to the caller's
 * environment: a test-mode dispatch to a live integration is a mock delivery in the sandbox.
 * Attached keys reach only integrations limited to a form they reach.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Schema, ValidationIssue } from '../../contract.js';
import { newId } from '../../ids.js';
import { RecordNotFound } from '../../store/errors.js';
import type { IntegrationRecord } from '../../store/integration-store.js';
import type { PageRequest } from '../../store/page.js';
import type { AuditEventInput } from '../../store/types.js';
import { actorOf, assertMayChange, definitionEnvironments, type Principal } from '../access.js';
import { forbidden, invalidValue, notFound } from '../errors.js';
import { createdMetadata, mergedMetadata } from '../metadata.js';
import { outboxOf } from '../outbox.js';
import { assertIfMatch, type IfMatch, withCompareAndSet } from '../preconditions.js';
import { type Services, timestamp } from '../services.js';
import { rethrowAsNotFound } from '../store-refusals.js';
import { eventRecord } from './publisher.js';
import { syntheticEvent } from './samples.js';
import { generateSigningSecret, signingSecretHint } from './signing-secret.js';
import { checkWebhookUrl } from './webhook-url.js';

type Integration = Schema<'Integration'>;
type IntegrationLog = Schema<'IntegrationLog'>;

/** Issue codes of this module that ValidationIssue.code does not list yet (see the spec-sync test). */
export const INTEGRATION_ISSUE_CODES = ['not_public_https', 'not_found', 'not_subscribed'] as const;

/** A key attached to a form or folder reaches an integration only through the form it is limited to. */
async function assertReachable(services: Services, principal: Principal, formId: string | null): Promise<void> {
  const { attachment } = principal;
  if (attachment.type === 'workspace') return;
  if (formId === null) {
    throw forbidden(
      'form_not_attached',
      `This key is attached to a ${attachment.type} and reaches only integrations limited to its forms.`,
    );
  }
  if (attachment.type === 'form' && attachment.form_id === formId) return;
  if (attachment.type === 'folder') {
    const record = await services.store.forms.get(principal.workspace.id, formId);
    if (record?.form.folder_id === attachment.folder_id) return;
  }
  throw forbidden('form_not_attached', `This key is attached to a ${attachment.type} that does not hold form ${formId}.`);
}

/** The audit entry of a change to an integration; its target is named by its URL's host (never the secret). */
function integrationAudit(
  principal: Principal,
  type: AuditEventInput['type'],
  integration: Integration,
  at: string,
  reason: string | null = null,
): AuditEventInput {
  return {
    workspaceId: principal.workspace.id,
    environment: principal.environment,
    type,
    actor: actorOf(principal),
    target: { type: 'integration', id: integration.id, name: new URL(integration.url).host },
    reason,
    at,
  };
}

async function findVisibleIntegration(services: Services, principal: Principal, id: string): Promise<IntegrationRecord> {
  const record = await services.store.integrations.get(principal.workspace.id, id);
  if (!record || (record.integration.test && principal.environment === 'live')) throw notFound('integration', id);
  await assertReachable(services, principal, record.integration.form_id);
  return record;
}

/** The issues of a URL and a form id given in a create or update (both checked, so both are reported). */
async function settingIssues(
  services: Services,
  principal: Principal,
  changes: { url?: string | undefined; formId?: string | null | undefined },
): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  if (changes.url !== undefined) {
    const verdict = await checkWebhookUrl(changes.url, services.webhookUrls);
    if (!verdict.ok)
      issues.push({
        location: 'body',
        pointer: '/url',
        code: 'not_public_https',
        message: `must be a public https URL: ${verdict.reason}`,
      });
  }
  if (changes.formId !== undefined && changes.formId !== null) {
    const form = await services.store.forms.get(principal.workspace.id, changes.formId);
    if (!form || (form.form.test && principal.environment === 'live')) {
      issues.push(formNotFound(changes.formId));
    }
  }
  return issues;
}

const formNotFound = (formId: string): ValidationIssue => ({
  location: 'body',
  pointer: '/form_id',
  code: 'not_found',
  message: `no form ${formId} in this workspace`,
});

/** The form named was deleted or moved by a transfer after `settingIssues` read it: the answer its read would have given. */
function rethrowFormGone(error: unknown): never {
  if (error instanceof RecordNotFound && error.kind === 'form') throw invalidValue([formNotFound(error.id)]);
  throw error;
}

export async function listIntegrations(services: Services, principal: Principal, page: PageRequest) {
  return services.store.integrations.list(
    { workspaceId: principal.workspace.id, environments: definitionEnvironments(principal.environment), attachment: principal.attachment },
    page,
  );
}

export const getIntegration = async (services: Services, principal: Principal, id: string): Promise<Integration> =>
  (await findVisibleIntegration(services, principal, id)).integration;

export async function createIntegration(
  services: Services,
  principal: Principal,
  input: Schema<'IntegrationCreate'>,
): Promise<Integration & { signing_secret: string }> {
  const formId = input.form_id ?? null;
  if (formId === null) await assertReachable(services, principal, null);
  const issues = await settingIssues(services, principal, { url: input.url, formId });
  if (issues.length > 0) throw invalidValue(issues);
  await assertReachable(services, principal, formId);
  const signingSecret = generateSigningSecret();
  const now = timestamp(services);
  const integration: Integration = {
    id: newId('int'),
    object: 'integration',
    type: 'webhook',
    url: input.url,
    events: input.events,
    enabled: input.enabled ?? true,
    disabled_at: null,
    disabled_reason: null,
    description: input.description ?? null,
    form_id: formId,
    secret_hint: signingSecretHint(signingSecret),
    previous_secret_expires_at: null,
    test: principal.environment === 'test',
    created_at: now,
    updated_at: now,
    metadata: createdMetadata(input.metadata),
  };
  const created = { ...integration, signing_secret: signingSecret };
  await services.store.integrations
    .create(
      { integration, workspaceId: principal.workspace.id, environment: principal.environment, signingSecret },
      integrationAudit(principal, 'integration.created', integration, now),
      outboxOf(services, () => ({ returns: created })),
    )
    .catch(rethrowFormGone);
  return created;
}

/** The fields an update may change, named in its audit entry. */
const UPDATABLE = [
  'url',
  'events',
  'enabled',
  'description',
  'form_id',
  'metadata',
] as const satisfies readonly (keyof Schema<'IntegrationUpdate'>)[];

export async function updateIntegration(
  services: Services,
  principal: Principal,
  id: string,
  changes: Schema<'IntegrationUpdate'>,
  ifMatch?: IfMatch,
): Promise<Integration> {
  return withCompareAndSet(ifMatch, { resource: 'integration', id }, async () => {
    const record = await findVisibleIntegration(services, principal, id);
    const { integration } = record;
    assertMayChange(principal, integration);
    const expectedTag = assertIfMatch(ifMatch, { resource: 'integration', id, representation: integration });
    const next: Integration = {
      ...integration,
      url: changes.url ?? integration.url,
      events: changes.events ?? integration.events,
      enabled: changes.enabled ?? integration.enabled,
      description: changes.description === undefined ? integration.description : changes.description,
      form_id: changes.form_id === undefined ? integration.form_id : changes.form_id,
      metadata: mergedMetadata(integration.metadata, changes.metadata),
    };
    // Enabling again clears what the service recorded when it disabled the integration, and closes its breaker.
    const reenabled = next.enabled && !integration.enabled;
    if (reenabled) Object.assign(next, { disabled_at: null, disabled_reason: null });
    const issues = await settingIssues(services, principal, {
      url: next.url === integration.url ? undefined : next.url,
      formId: next.form_id === integration.form_id ? undefined : next.form_id,
    });
    if (issues.length > 0) throw invalidValue(issues);
    if (next.form_id !== integration.form_id) await assertReachable(services, principal, next.form_id);
    if (isDeepStrictEqual(next, integration)) return integration;
    const updated = { ...next, updated_at: timestamp(services) };
    const changed = UPDATABLE.filter((field) => !isDeepStrictEqual(next[field], integration[field]));
    const audit = integrationAudit(principal, 'integration.updated', updated, updated.updated_at, `changed: ${changed.join(', ')}`);
    await services.store.integrations
      .update({ ...record, integration: updated }, { resetCircuit: reenabled, audit, expectedTag })
      .catch(rethrowFormGone);
    return updated;
  });
}

/** Deletes the integration; with `If-Match`, only while it is in a state the client has seen (else 412). */
export async function deleteIntegration(services: Services, principal: Principal, id: string, ifMatch?: IfMatch): Promise<void> {
  await withCompareAndSet(ifMatch, { resource: 'integration', id }, async () => {
    const { integration } = await findVisibleIntegration(services, principal, id);
    assertMayChange(principal, integration);
    const readTag = assertIfMatch(ifMatch, { resource: 'integration', id, representation: integration });
    await services.store.integrations.delete(
      integration.id,
      integrationAudit(principal, 'integration.deleted', integration, timestamp(services)),
      { expectedTag: ifMatch && 'tags' in ifMatch ? readTag : undefined },
    );
  });
}

/** How long the replaced secret keeps signing when the request does not say (the document's default). */
export const DEFAULT_EXPIRE_PREVIOUS_AFTER_SECONDS = 86_400;

type RotatedIntegration = Integration & { signing_secret: string };

/**
 * Issues a new signing secret. The current one keeps signing beside it until `expire_previous_after` seconds
 * from now (never when 0); a secret kept by an earlier rotation is dropped at once, so at most two sign.
 */
export async function rotateIntegrationSecret(
  services: Services,
  principal: Principal,
  id: string,
  input: Schema<'IntegrationSecretRotate'> | undefined,
): Promise<RotatedIntegration> {
  const { integration } = await findVisibleIntegration(services, principal, id);
  assertMayChange(principal, integration);
  const secret = generateSigningSecret();
  const at = timestamp(services);
  const seconds = input?.expire_previous_after ?? DEFAULT_EXPIRE_PREVIOUS_AFTER_SECONDS;
  const previousExpiresAt = seconds === 0 ? null : new Date(Date.parse(at) + seconds * 1000).toISOString();
  const reason = previousExpiresAt === null ? 'previous secret retired at once' : `previous secret valid until ${previousExpiresAt}`;
  const rotated = (record: IntegrationRecord): RotatedIntegration => ({ ...record.integration, signing_secret: secret });
  const record = await services.store.integrations
    .rotateSecret(
      integration.id,
      { secret, hint: signingSecretHint(secret), previousExpiresAt, at },
      integrationAudit(principal, 'integration.secret_rotated', integration, at, reason),
      outboxOf<IntegrationRecord>(services, (result) => ({ returns: rotated(result) })),
    )
    .catch(rethrowAsNotFound);
  return rotated(record);
}

/** Forgets the replaced secrets whose overlap has ended (they no longer sign: see the delivery worker). */
export const purgeExpiredSigningSecrets = (services: Pick<Services, 'store' | 'now'>, now = services.now()): Promise<number> =>
  services.store.integrations.purgeExpiredSecrets(now.toISOString());

/** A dispatch returns the pending log entry its store call makes. */
const returnsLog = (services: Services) => outboxOf<IntegrationLog>(services, (log) => ({ returns: log }));

/**
 * Queues a ping, a synthetic sample of any event type, or a replay of an earlier event of the caller's environment,
 * whether or not the integration is enabled.
 */
export async function dispatchIntegration(
  services: Services,
  principal: Principal,
  id: string,
  input: Schema<'IntegrationDispatch'> | undefined,
): Promise<IntegrationLog> {
  const { integration } = await findVisibleIntegration(services, principal, id);
  const { environment } = principal;
  const at = timestamp(services);
  const mock = environment === 'test';
  if (input?.type !== undefined) {
    // Stored as a new event like a ping, so that it is queued, signed, logged and replayable as any other.
    const sample = syntheticEvent(services, principal, integration, input.type, at);
    return services.store.integrations
      .dispatch(integration.id, sample, { newEvent: true, mock, at }, returnsLog(services))
      .catch(rethrowAsNotFound);
  }
  const eventId = input?.event_id;
  if (eventId === undefined) {
    const ping = eventRecord(
      {
        workspaceId: principal.workspace.id,
        environment,
        type: 'integration.ping',
        formId: null,
        data: { object: { object: 'integration', id: integration.id } },
      },
      at,
    );
    return services.store.integrations
      .dispatch(integration.id, ping, { newEvent: true, mock, at }, returnsLog(services))
      .catch(rethrowAsNotFound);
  }
  // The events feed's rows: an id the feed (or a delivery's X-Service-Event-Id) shows is one this finds.
  const event = await services.store.events.get(principal.workspace.id, environment, eventId);
  if (!event)
    throw invalidValue([{ location: 'body', pointer: '/event_id', code: 'not_found', message: `no event ${eventId} in this environment` }]);
  const subscribed =
    event.type === 'integration.ping' ||
    (integration.events.includes(event.type) && (integration.form_id === null || integration.form_id === event.formId));
  if (!subscribed) {
    throw invalidValue([
      {
        location: 'body',
        pointer: '/event_id',
        code: 'not_subscribed',
        message: integration.events.includes(event.type)
          ? `the event is not of form ${integration.form_id}`
          : `the integration does not subscribe to ${event.type}`,
      },
    ]);
  }
  return services.store.integrations
    .dispatch(integration.id, event, { newEvent: false, mock, at }, returnsLog(services))
    .catch(rethrowAsNotFound);
}

export async function listIntegrationLogs(
  services: Services,
  principal: Principal,
  id: string,
  filter: { status?: IntegrationLog['status'] | undefined; eventType?: Schema<'EventType'> | undefined },
  page: PageRequest,
) {
  const { integration } = await findVisibleIntegration(services, principal, id);
  return services.store.integrations.listLogs(integration.id, principal.environment, filter, page);
}
