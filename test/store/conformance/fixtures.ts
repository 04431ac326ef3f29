/** Records for the store conformance suite: valid resources, built directly (no domain, no HTTP). */
import type { Environment, Schema } from '../../../src/contract.js';
import { newId } from '../../../src/ids.js';
import type { EventRecord } from '../../../src/store/integration-store.js';
import { defaultAppearance, defaultScreens, noHosting, noSpamProtection } from '../../../src/store/rows/forms.js';
import { completeContext } from '../../../src/store/rows/submissions.js';
import type { AuditEventInput, Store } from '../../../src/store/types.js';
import { form as definition, shortText } from '../../domain/fixtures.js';

/** Distinct instants a second apart, so lists have a known order. */
export const at = (second: number): string => new Date(Date.UTC(2031, 0, 1, 0, 0, second)).toISOString();

export async function workspace(store: Store): Promise<string> {
  const id = newId('ws');
  await store.workspaces.create({ id, name: 'Acme', plan: 'business', createdAt: at(0) });
  return id;
}

export const audit = (workspaceId: string, type: AuditEventInput['type'] = 'member.removed'): AuditEventInput => ({
  workspaceId,
  environment: 'live',
  type,
  actor: { type: 'system', id: null, name: null },
  target: { type: 'member', id: 'mem_x', name: null },
  reason: null,
  at: at(0),
});

export function form(slug: string, created = at(1), folderId: string | null = null): Schema<'Form'> {
  return {
    id: newId('form'),
    object: 'form',
    name: `Form ${slug}`,
    slug,
    status: 'published',
    version: 1,
    folder_id: folderId,
    test: false,
    created_at: created,
    updated_at: created,
    metadata: {},
    ...definition([
      { id: 'start', title: 'Start', fields: [shortText('name')] },
      { id: 'end', title: 'End', fields: [shortText('notes')] },
    ]),
    spam_protection: noSpamProtection,
    hosting: noHosting,
    appearance: defaultAppearance,
    ...defaultScreens,
    logo: null,
  };
}

export function apiKey(attachment: Schema<'ApiKey'>['attachment'], created = at(2)): Schema<'ApiKey'> {
  return {
    id: newId('key'),
    object: 'api_key',
    name: 'attached',
    environment: 'live',
    scope: 'read',
    attachment,
    expires_at: null,
    ip_allowlist: ['10.0.0.0/8', '2001:db8::/32'],
    status: 'active',
    revoked_at: null,
    revocation_reason: null,
    revocation_cause: null,
    secret_hint: 'abcd',
    last_used_at: null,
    created_at: created,
  };
}

export function submission(formId: string, created: string, status: 'completed' | 'partial' = 'completed'): Schema<'Submission'> {
  return {
    id: newId('sub'),
    object: 'submission',
    form_id: formId,
    form_version: 1,
    status,
    test: false,
    answers: { name: 'Zoë "quoted" \\ ünïcode', size: 2.5, consent: true, tags: ['a', 'ü'] },
    hidden: { utm_source: 'newsletter' },
    visited_steps: status === 'completed' ? ['start', 'end'] : ['start'],
    score: 25,
    grade: status === 'completed' ? 'B' : null,
    score_breakdown: [],
    context: completeContext({ referrer: 'https://www.example.com/', utm: { source: 'newsletter', campaign: 'spring' } }),
    metadata: {},
    completed_at: status === 'completed' ? created : null,
    scored_at: created,
    created_at: created,
    updated_at: created,
  };
}

export function integration(environment: Environment = 'live', created = at(3)): Schema<'Integration'> {
  return {
    id: newId('int'),
    object: 'integration',
    type: 'webhook',
    url: 'https://hooks.example.com/in',
    events: ['form.created', 'submission.created'],
    enabled: true,
    disabled_at: null,
    disabled_reason: null,
    description: null,
    form_id: null,
    secret_hint: 'wxyz',
    previous_secret_expires_at: null,
    test: environment === 'test',
    created_at: created,
    updated_at: created,
    metadata: {},
  };
}

export function event(workspaceId: string, type: EventRecord['type'] = 'form.created', environment: Environment = 'live'): EventRecord {
  const id = newId('evt');
  return {
    id,
    workspaceId,
    environment,
    type,
    formId: null,
    submissionId: null,
    createdAt: at(4),
    body: `{"id":"${id}","data":{"é":"\\u00e9 exact bytes"}}`,
    synthetic: false,
  };
}
