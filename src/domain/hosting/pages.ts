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
import type { FormRecord, PublishableKeyCredential, PublishableKeyRecord } from '../../store/types.js';
import { authenticatePublishable } from '../public/authenticate.js';
import { getPublicForm } from '../public/forms.js';
import { publishableKeyPattern } from '../public/publishable-keys.js';
import { type Services, timestamp } from '../services.js';

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
 * Why a page is not served: told in test mode only (src/http/hosted-pages.ts), where it helps a developer whose frame
 * stays empty. In live mode every refusal is the same bare 404 as an unknown form's.
 */
export type PageRefusal =
  | { reason: 'hosting_off' }
  /** Not a publishable key of this service: mistyped, unknown, or the service's own hosted-pages key. */
  | { reason: 'unknown_key' }
  | { reason: 'revoked_key' }
  | { reason: 'other_workspace' }
  | { reason: 'environment'; key: Environment; form: Environment }
  | { reason: 'attachment'; attachment: 'form' | 'folder' }
  | { reason: 'origin'; origin: string };

/** The request for a page: the form, and for a frame (embed.js), the key named and the framing page's origin. */
export interface PageRequest {
  formId: string;
  embed?: { key: string; parentOrigin: string | undefined };
}

export type PageAccess =
  | { served: true; record: FormRecord; frameAncestors: readonly string[] }
  /** `why` only in test mode; absent, the page is the bare 404 that names nothing. */
  | { served: false; why?: PageRefusal };

const isTestKeyValue = (value: string): boolean => value.startsWith('svc_pub_test_');

/** Why the customer's key named by embed.js does not let its origins frame the form's page; undefined if it does. */
function embedRefusal(
  { form, workspaceId, environment }: FormRecord,
  credential: PublishableKeyCredential | undefined,
): PageRefusal | undefined {
  if (credential === undefined || credential.hostedPage) return { reason: 'unknown_key' };
  const { key } = credential;
  if (credential.workspaceId !== workspaceId) return { reason: 'other_workspace' };
  if (key.status !== 'active') return { reason: 'revoked_key' };
  if (key.environment !== environment) return { reason: 'environment', key: key.environment, form: environment };
  if (key.attachment.type === 'form' && key.attachment.form_id !== form.id) return { reason: 'attachment', attachment: 'form' };
  if (key.attachment.type === 'folder' && key.attachment.folder_id !== form.folder_id)
    return { reason: 'attachment', attachment: 'folder' };
  return undefined;
}

/**
 * Whether a hosted form's page is served, and which origins may frame it. Served: a form with hosting on, and for a
 * frame request (`GET /f/{id}?embed=<key>` from embed.js), a customer's publishable key that is active, of the form's
 * workspace and environment, and reaches the form; the key's `allowed_origins` become the page's `frame-ancestors`,
 * which the browser enforces.
 *
 * A refusal says why only in test mode, and only what the requester may know already. A test form or a test key
 * (`svc_pub_test_…`) makes a frame request of a hosted form test mode: its page is public anyway, and the reasons
 * concern the key. A form that is not hosted is not public: "hosting off" is told for a test form, or to a test key of
 * the form's own workspace, never to another workspace's key. In test mode, a frame request from a page whose origin
 * the key does not allow is refused here with that reason, rather than left to `frame-ancestors` (which would show an
 * empty frame and a console error); in live mode the browser's check is the only one, as it always was.
 */
export async function hostedPageAccess(services: Services, request: PageRequest): Promise<PageAccess> {
  const workspaceId = await services.store.forms.workspaceOf(request.formId);
  const record = workspaceId === undefined ? undefined : await services.store.forms.get(workspaceId, request.formId);
  if (!record) return { served: false };
  const embed = request.embed;
  const credential =
    embed !== undefined && publishableKeyPattern.test(embed.key) ? await services.store.publishableKeys.findByValue(embed.key) : undefined;
  const testForm = record.environment === 'test';
  if (!record.form.hosting.enabled) {
    const ownTestKey = credential?.workspaceId === record.workspaceId && credential.key.environment === 'test' && !credential.hostedPage;
    return testForm || ownTestKey ? { served: false, why: { reason: 'hosting_off' } } : { served: false };
  }
  if (embed === undefined) return { served: true, record, frameAncestors: [] };
  const testMode = testForm || isTestKeyValue(embed.key);
  const refusal = embedRefusal(record, credential);
  if (refusal) return testMode ? { served: false, why: refusal } : { served: false };
  const allowed = credential!.key.allowed_origins;
  if (testMode && embed.parentOrigin !== undefined && !allowed.includes(embed.parentOrigin)) {
    return { served: false, why: { reason: 'origin', origin: embed.parentOrigin } };
  }
  return { served: true, record, frameAncestors: allowed };
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
