/**
 * Test data made through the API, one factory per resource, typed from the generated types: the body a factory
 * sends is the document's create request, what it returns is the document's 201 response. A field renamed or
 * retyped in the document is a compile error in every test that uses it.
 */
import type { Test } from 'supertest';
import { expect } from 'vitest';
import type { operations, Schema } from '../../src/contract.js';

export type Form = Schema<'Form'>;
export type FormCreate = Schema<'FormCreate'>;
export type Folder = Schema<'Folder'>;
export type ApiKey = Schema<'ApiKey'>;
export type ApiKeyCreate = Schema<'ApiKeyCreate'>;
export type ApiKeyCreated = Schema<'ApiKeyCreated'>;
export type Submission = Schema<'Submission'>;
export type SubmissionCreate = Schema<'SubmissionCreate'>;
export type Answers = SubmissionCreate['answers'];
export type Integration = Schema<'Integration'>;
export type IntegrationCreate = Schema<'IntegrationCreate'>;
export type IntegrationLog = Schema<'IntegrationLog'>;
export type Member = Schema<'Member'>;

/**
 * A request body as a test writes it: every field name and type is checked (an object literal with a renamed
 * field does not compile), but fields the API defaults may be left out. The generated request types list
 * defaulted fields as required.
 */
export type Loose<T> = T extends readonly (infer Item)[] ? Loose<Item>[] : T extends object ? { [K in keyof T]?: Loose<T[K]> } : T;
export type FormRequest = Loose<FormCreate>;
export type SubmissionRequest = Loose<SubmissionCreate> & Pick<SubmissionCreate, 'form_id'>;
export type KeyRequest = Loose<ApiKeyCreate> & Pick<ApiKeyCreate, 'environment' | 'scope'>;

/** What an operation answers with 201, as the document describes it. */
export type Created<OperationId extends keyof operations> = operations[OperationId]['responses'] extends {
  201: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;

export type Method = 'get' | 'post' | 'patch' | 'delete' | 'put';

/** What the factories need of a test API (`createTestApi` gives it): a request with a key, and the admin keys. */
export interface Caller {
  call(method: Method, path: string, key?: string | null): Test;
  workspace: { live_admin_key: string; test_admin_key: string };
}

/** The body of a 201, or a failure showing the problem the API answered with. */
async function created<Body>(request: Test): Promise<Body> {
  const res = await request;
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as Body;
}

/** A small valid form definition: two steps, one required email field. */
export function formBody(name: string, extra: FormRequest = {}): FormRequest {
  return {
    name,
    steps: [
      { id: 'contact', title: 'Contact', fields: [{ type: 'email', ref: 'email', label: 'Your email', required: true }] },
      { id: 'company', title: 'Company', fields: [{ type: 'short_text', ref: 'company', label: 'Company name' }] },
    ],
    ...extra,
  };
}

let forms = 0;
/** Creates a form: `formBody` with a fresh name unless `body` gives one (or a whole definition, such as `demoForm()`). */
export const createForm = (api: Caller, body: FormRequest = {}, key = api.workspace.live_admin_key): Promise<Created<'createForm'>> =>
  created(api.call('post', '/v1/forms', key).send({ ...formBody(`Form ${++forms}`), ...body }));

export const createFolder = (api: Caller, name: string, key = api.workspace.live_admin_key): Promise<Created<'createFolder'>> =>
  created(api.call('post', '/v1/folders', key).send({ name }));

/** Creates an API key; the test admin key makes test keys unless `adminKey` is given. */
export const createKey = (
  api: Caller,
  body: KeyRequest,
  adminKey = body.environment === 'test' ? api.workspace.test_admin_key : api.workspace.live_admin_key,
): Promise<Created<'createApiKey'>> => created(api.call('post', '/v1/api_keys', adminKey).send({ name: 'test key', ...body }));

export const submit = (api: Caller, body: SubmissionRequest, key = api.workspace.live_admin_key): Promise<Created<'createSubmission'>> =>
  created(api.call('post', '/v1/submissions', key).send(body));

/** A webhook URL whose host the integration tests' resolver answers with a public address. */
export const PUBLIC_URL = 'https://hooks.example.com/form-funnel';

/** Creates a webhook integration: to PUBLIC_URL for form.created unless `body` says otherwise. */
export const createIntegration = (
  api: Caller,
  body: Loose<IntegrationCreate> = {},
  key = api.workspace.live_admin_key,
): Promise<Created<'createIntegration'>> =>
  created(api.call('post', '/v1/integrations', key).send({ url: PUBLIC_URL, events: ['form.created'], ...body }));

/** The delivery log of an integration, newest first. */
export async function logsOf(
  api: Caller,
  integrationId: string,
  key = api.workspace.live_admin_key,
  query = '',
): Promise<IntegrationLog[]> {
  const res = await api.call('get', `/v1/integrations/${integrationId}/logs${query}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as Schema<'IntegrationLogList'>).data;
}
