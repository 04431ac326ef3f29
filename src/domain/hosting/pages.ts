/**
 * What a hosted form's page needs before it is served: the form (hosting on, or it does not exist for the page), the
 * publishable key its page calls the public operations with, and, when the page is framed by a customer's site, the
 * origins that may frame it.
 *
 * The page's key is the service's, not the customer's: one per workspace and environment, made on the first page
 * served, allowed on the service's own origin only and reaching hosted forms only. It is never listed, read or
 * revoked through `/publishable_keys`: the customer did not make it and cannot break their hosted forms by revoking
 * it; turning a form's hosting off is what closes its page and its API.
 */
import { randomBytes } from 'node:crypto';
import type { Environment, Schema } from '../../contract.js';
import { newId, randomBase62 } from '../../ids.js';
import type { FormRecord, PublishableKeyRecord } from '../../store/types.js';
import { notFound } from '../errors.js';
import { authenticatePublishable } from '../public/authenticate.js';
import { getPublicForm } from '../public/forms.js';
import { publishableKeyPattern } from '../public/publishable-keys.js';
import { type Services, timestamp } from '../services.js';

/** A hosted form, or 404 for a form that is unknown or not hosted: the page says nothing about which. */
export async function findHostedForm(services: Services, formId: string): Promise<FormRecord> {
  const workspaceId = await services.store.forms.workspaceOf(formId);
  const record = workspaceId === undefined ? undefined : await services.store.forms.get(workspaceId, formId);
  if (!record?.form.hosting.enabled) throw notFound('form', formId);
  return record;
}

/** The key the workspace's hosted pages use in this environment, made on first use. */
export async function hostedPageKey(services: Services, workspaceId: string, environment: Environment): Promise<PublishableKeyRecord> {
  const existing = await services.store.publishableKeys.findHostedPageKey(workspaceId, environment);
  if (existing) return existing;
  const key: Schema<'PublishableKey'> = {
    id: newId('pk'),
    object: 'publishable_key',
    name: 'Hosted form pages',
    environment,
    value: `svc_pub_${environment}_${randomBase62(24)}`,
    // Its one origin is the service's own, read from each request (src/http/cors.ts), not stored.
    allowed_origins: [],
    attachment: { type: 'workspace' },
    status: 'active',
    revoked_at: null,
    last_used_at: null,
    created_at: timestamp(services),
  };
  return services.store.publishableKeys.createHostedPageKey({ key, workspaceId, tokenSecret: randomBytes(32) });
}

/**
 * The origins that may frame a hosted form's page for `GET /embed.js`: those of the customer's publishable key named by
 * the embedding script, if it is active, of the form's workspace and environment, and reaches the form. Anything else
 * is 404, as for a form that is not hosted.
 */
export async function embeddingOrigins(
  services: Services,
  { form, workspaceId, environment }: FormRecord,
  keyValue: string,
): Promise<string[]> {
  const credential = publishableKeyPattern.test(keyValue) ? await services.store.publishableKeys.findByValue(keyValue) : undefined;
  const key = credential?.key;
  const reaches =
    key !== undefined &&
    !credential!.hostedPage &&
    credential!.workspaceId === workspaceId &&
    key.status === 'active' &&
    key.environment === environment &&
    (key.attachment.type === 'workspace' ||
      (key.attachment.type === 'form' && key.attachment.form_id === form.id) ||
      (key.attachment.type === 'folder' && key.attachment.folder_id === form.folder_id));
  if (!reaches) throw notFound('form', form.id);
  return key.allowed_origins;
}

/**
 * The page as it starts: the hosted-pages key, and the public form as that key reads it (`GET /public/forms/{id}`),
 * carried in the page so its first step shows without a second round trip.
 */
export async function hostedPageStart(services: Services, record: FormRecord): Promise<{ key: string; form: Schema<'PublicForm'> }> {
  const { key } = await hostedPageKey(services, record.workspaceId, record.environment);
  // Its use is not worth a write per page view: the page's own API calls record it.
  const principal = await authenticatePublishable(services, `Bearer ${key.value}`, { record: () => undefined });
  return { key: key.value, form: await getPublicForm(services, principal, record.form.id) };
}
