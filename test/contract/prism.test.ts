/**
 * Contract tests against Prism: every operation of the bundled document is called through the typed client
 * with input that is valid per the document (its request examples and schema examples), and
 * - the documented success status and the documented example come back, typed as the document says;
 * - one documented error comes back as a problem body equal to a documented example, and `unwrap` turns it
 *   into a FormFunnelError with `code` and `requestId`.
 * Prism runs with `--errors`: a request, or a mocked response, that breaks the contract is a 500 and fails here.
 * The table is keyed by operationId and checked against the document at compile time (generated types) and
 * at run time (dist/openapi.json), so a new operation without a contract test fails both.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { operations, webhooks } from '../../generated/openapi.js';
import { lifecycleHeaders, writeMockDocument } from '../../src/cli/mock-bundle.js';
import {
  createFormFunnelClient,
  type FormFunnelClient,
  FormFunnelError,
  paginate,
  type Schema,
  setFormLogo,
  type UnwrappedData,
  unwrap,
} from '../../src/client/index.js';
import type { FetchResultLike } from '../../src/client/unwrap.js';
import { pngImage } from '../support/images.js';
import {
  deref,
  document,
  documentedOperations,
  documentedResponse,
  examplesOf,
  requestExample,
  responseContent,
  responseExample,
  schemaExample,
  successStatus,
} from './support/document.js';
import { type RunningPrism, startPrism } from './support/prism.js';
import { pointer, refSegments, schemaErrors } from './support/schema-validator.js';

/** Syntactically valid (svc_test_ + 32 base62); Prism only checks that a Bearer credential is present. */
const apiKey = `svc_test_${'4eC39HqLyjWDarjt'.repeat(2)}`;

let prism: RunningPrism;
let client: FormFunnelClient;
beforeAll(async () => {
  prism = await startPrism();
  client = createFormFunnelClient({ apiKey, baseUrl: prism.url, maxRetries: 0 });
});
afterAll(async () => {
  await prism?.stop();
});

// Ids of the right shape, taken from the schemas' own examples.
const formId = schemaExample<string>('FormId');
const folderId = schemaExample<string>('FolderId');
const submissionId = schemaExample<string>('SubmissionId');
const apiKeyId = schemaExample<string>('ApiKeyId');
const publishableKeyId = schemaExample<string>('PublishableKeyId');
const memberId = schemaExample<string>('MemberId');
const inviteId = schemaExample<string>('InviteId');
const transferId = schemaExample<string>('FormTransferId');
const rescoreJobId = schemaExample<string>('RescoreJobId');
const integrationId = schemaExample<string>('IntegrationId');
const eventId = schemaExample<string>('EventId');
const timestamp = schemaExample<string>('Timestamp');

type WithRequestId<T> = T & Schema<'RequestIdField'>;
/**
 * openapi-fetch passes response bodies through a mapped type (`Readable`) that flattens `allOf` intersections,
 * so the client's data is equivalent to the document's named type rather than identical: assignable both ways.
 */
type Interchangeable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** `operations` also holds the webhooks' operations, which Prism does not serve. */
type WebhookOperationId = {
  [Id in keyof operations]: operations[Id] extends webhooks[keyof webhooks]['post'] ? Id : never;
}[keyof operations];
type PathOperationId = Exclude<keyof operations, WebhookOperationId>;
type Body<OperationId extends keyof operations> = NonNullable<operations[OperationId]['requestBody']>['content'] extends infer Content
  ? Content[keyof Content]
  : never;
type Send<Result> = (client: FormFunnelClient, headers: { Prefer: string }) => Promise<Result>;

interface ContractCase<Result extends FetchResultLike> {
  send: Send<Result>;
  /** Which example of the success response to ask Prism for; default: the first documented one. */
  example?: string;
  /** The documented error to ask Prism for, by status and example name. */
  error: { status: number; example: string };
  /** Compile time: the typed client's data is the type the document names (a no-op at run time). */
  typed: (data: UnwrappedData<Result>) => void;
}
type AnyContractCase = Omit<ContractCase<FetchResultLike>, 'typed'> & { typed: (data: unknown) => void };
const contract = <Result extends FetchResultLike>(c: ContractCase<Result>): AnyContractCase => c as unknown as AnyContractCase;

/** Request bodies are the document's own request examples, typed as the operation's body. */
const body = <OperationId extends keyof operations>(operationId: OperationId, example?: string) =>
  requestExample<Body<OperationId>>(operationId, example);

const cases = {
  // Forms
  listForms: contract({
    send: (c, headers) => c.GET('/forms', { params: { query: { limit: 2, folder_id: folderId } }, headers }),
    error: { status: 400, example: 'invalid_cursor' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'FormList'>>>().toEqualTypeOf<true>(),
  }),
  createForm: contract({
    send: (c, headers) => c.POST('/forms', { body: body('createForm'), headers }),
    error: { status: 422, example: 'invalid_form_logic' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Form'>>>>().toEqualTypeOf<true>(),
  }),
  getForm: contract({
    send: (c, headers) => c.GET('/forms/{id}', { params: { path: { id: formId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Form'>>>>().toEqualTypeOf<true>(),
  }),
  updateForm: contract({
    send: (c, headers) => c.PATCH('/forms/{id}', { params: { path: { id: formId } }, body: body('updateForm'), headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Form'>>>>().toEqualTypeOf<true>(),
  }),
  deleteForm: contract({
    send: (c, headers) => c.DELETE('/forms/{id}', { params: { path: { id: formId } }, headers }),
    example: 'form',
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'Deleted'>>>().toEqualTypeOf<true>(),
  }),
  listFormVersions: contract({
    send: (c, headers) => c.GET('/forms/{id}/versions', { params: { path: { id: formId }, query: { limit: 10 } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'FormVersionList'>>>().toEqualTypeOf<true>(),
  }),
  getFormVersion: contract({
    send: (c, headers) => c.GET('/forms/{id}/versions/{version}', { params: { path: { id: formId, version: 2 } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'FormVersion'>>>>().toEqualTypeOf<true>(),
  }),
  restoreFormVersion: contract({
    send: (c, headers) =>
      c.POST('/forms/{id}/versions/{version}/restore', {
        params: { path: { id: formId, version: 1 }, header: { 'If-Match': '"Xb3Q9mKfT0aLr7Vw2sNc1e"' } },
        headers,
      }),
    error: { status: 412, example: 'precondition_failed' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Form'>>>>().toEqualTypeOf<true>(),
  }),
  setFormLogo: contract({
    // The file itself is the body, as a browser's File or a Blob would send it.
    send: (c, headers) => setFormLogo(c, formId, new Blob([pngImage(64, 64)], { type: 'image/png' }), { headers }),
    error: { status: 422, example: 'invalid_image' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Form'>>>>().toEqualTypeOf<true>(),
  }),
  deleteFormLogo: contract({
    send: (c, headers) =>
      c.DELETE('/forms/{id}/logo', { params: { path: { id: formId }, header: { 'If-Match': '"Xb3Q9mKfT0aLr7Vw2sNc1e"' } }, headers }),
    error: { status: 412, example: 'precondition_failed' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Form'>>>>().toEqualTypeOf<true>(),
  }),
  transferForm: contract({
    send: (c, headers) => c.POST('/forms/{id}/transfer', { params: { path: { id: formId } }, body: body('transferForm'), headers }),
    error: { status: 409, example: 'transfer_pending' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'FormTransfer'>>>>().toEqualTypeOf<true>(),
  }),
  listTransfers: contract({
    send: (c, headers) => c.GET('/transfers', { params: { query: { direction: 'incoming', limit: 10 } }, headers }),
    error: { status: 401, example: 'invalid_api_key' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'FormTransferList'>>>().toEqualTypeOf<true>(),
  }),
  getTransfer: contract({
    send: (c, headers) => c.GET('/transfers/{id}', { params: { path: { id: transferId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'FormTransfer'>>>>().toEqualTypeOf<true>(),
  }),
  acceptTransfer: contract({
    send: (c, headers) => c.POST('/transfers/{id}/accept', { params: { path: { id: transferId } }, headers }),
    error: { status: 409, example: 'slug_taken' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'FormTransfer'>>>>().toEqualTypeOf<true>(),
  }),
  declineTransfer: contract({
    send: (c, headers) => c.POST('/transfers/{id}/decline', { params: { path: { id: transferId } }, headers }),
    error: { status: 409, example: 'transfer_not_pending' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'FormTransfer'>>>>().toEqualTypeOf<true>(),
  }),
  cancelTransfer: contract({
    send: (c, headers) => c.POST('/transfers/{id}/cancel', { params: { path: { id: transferId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'FormTransfer'>>>>().toEqualTypeOf<true>(),
  }),

  // Folders
  listFolders: contract({
    send: (c, headers) => c.GET('/folders', { params: { query: { limit: 20 } }, headers }),
    error: { status: 401, example: 'invalid_api_key' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'FolderList'>>>().toEqualTypeOf<true>(),
  }),
  createFolder: contract({
    send: (c, headers) => c.POST('/folders', { body: body('createFolder'), headers }),
    error: { status: 403, example: 'insufficient_scope' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Folder'>>>>().toEqualTypeOf<true>(),
  }),
  getFolder: contract({
    send: (c, headers) => c.GET('/folders/{id}', { params: { path: { id: folderId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Folder'>>>>().toEqualTypeOf<true>(),
  }),
  updateFolder: contract({
    send: (c, headers) =>
      c.PATCH('/folders/{id}', {
        params: { path: { id: folderId } },
        body: { name: 'Partner campaigns', metadata: { crm_segment: 'partners' } },
        headers,
      }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Folder'>>>>().toEqualTypeOf<true>(),
  }),
  deleteFolder: contract({
    send: (c, headers) => c.DELETE('/folders/{id}', { params: { path: { id: folderId } }, headers }),
    example: 'folder',
    error: { status: 409, example: 'folder_not_empty' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'Deleted'>>>().toEqualTypeOf<true>(),
  }),

  // Submissions and analytics
  listSubmissions: contract({
    send: (c, headers) =>
      c.GET('/submissions', {
        params: {
          query: { form_id: formId, status: 'completed', created_gte: timestamp, min_score: 10, utm_source: 'linkedin', limit: 50 },
        },
        headers,
      }),
    error: { status: 400, example: 'invalid_parameters' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'SubmissionList'>>>().toEqualTypeOf<true>(),
  }),
  // A download: read as text (openapi-fetch parses JSON by default), the NDJSON example first.
  exportSubmissions: contract({
    send: (c, headers) =>
      c.GET('/submissions/export', { params: { query: { form_id: formId, sort: '-score' } }, parseAs: 'text', headers }),
    error: { status: 406, example: 'not_acceptable' },
    typed: (data) => expectTypeOf<typeof data>().toEqualTypeOf<string>(),
  }),
  createSubmission: contract({
    send: (c, headers) => c.POST('/submissions', { body: body('createSubmission', 'completed'), headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Submission'>>>>().toEqualTypeOf<true>(),
  }),
  getSubmission: contract({
    send: (c, headers) => c.GET('/submissions/{id}', { params: { path: { id: submissionId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Submission'>>>>().toEqualTypeOf<true>(),
  }),
  updateSubmission: contract({
    send: (c, headers) => c.PATCH('/submissions/{id}', { params: { path: { id: submissionId } }, body: body('updateSubmission'), headers }),
    error: { status: 409, example: 'submission_completed' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Submission'>>>>().toEqualTypeOf<true>(),
  }),
  deleteSubmission: contract({
    send: (c, headers) => c.DELETE('/submissions/{id}', { params: { path: { id: submissionId } }, headers }),
    example: 'submission',
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'Deleted'>>>().toEqualTypeOf<true>(),
  }),
  rescoreSubmission: contract({
    send: (c, headers) => c.POST('/submissions/{id}/rescore', { params: { path: { id: submissionId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'RescoredSubmission'>>>>().toEqualTypeOf<true>(),
  }),
  eraseSubmissions: contract({
    send: (c, headers) => c.POST('/submissions/erase', { body: body('eraseSubmissions'), headers }),
    error: { status: 403, example: 'insufficient_scope' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'SubmissionErasure'>>>>().toEqualTypeOf<true>(),
  }),
  rescoreForm: contract({
    send: (c, headers) => c.POST('/forms/{id}/rescore', { params: { path: { id: formId } }, headers }),
    error: { status: 409, example: 'rescore_in_progress' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'RescoreJob'>>>>().toEqualTypeOf<true>(),
  }),
  getRescoreJob: contract({
    send: (c, headers) => c.GET('/rescore_jobs/{id}', { params: { path: { id: rescoreJobId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'RescoreJob'>>>>().toEqualTypeOf<true>(),
  }),
  getAnalytics: contract({
    send: (c, headers) => c.GET('/analytics', { params: { query: { form_id: formId, from: '2026-11-01', to: '2026-11-07' } }, headers }),
    error: { status: 422, example: 'invalid_date_range' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Analytics'>>>>().toEqualTypeOf<true>(),
  }),

  // Account, keys and audit
  getMe: contract({
    send: (c, headers) => c.GET('/me', { headers }),
    error: { status: 401, example: 'invalid_api_key' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Me'>>>>().toEqualTypeOf<true>(),
  }),
  getUsage: contract({
    send: (c, headers) => c.GET('/usage', { headers }),
    error: { status: 403, example: 'insufficient_scope' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Usage'>>>>().toEqualTypeOf<true>(),
  }),
  listApiKeys: contract({
    send: (c, headers) => c.GET('/api_keys', { params: { query: { status: 'active', limit: 20 } }, headers }),
    error: { status: 403, example: 'insufficient_scope' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'ApiKeyList'>>>().toEqualTypeOf<true>(),
  }),
  createApiKey: contract({
    send: (c, headers) => c.POST('/api_keys', { body: body('createApiKey'), headers }),
    error: { status: 422, example: 'invalid_value' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'ApiKeyCreated'>>>>().toEqualTypeOf<true>(),
  }),
  getApiKey: contract({
    send: (c, headers) => c.GET('/api_keys/{id}', { params: { path: { id: apiKeyId } }, headers }),
    example: 'active',
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'ApiKey'>>>>().toEqualTypeOf<true>(),
  }),
  revokeApiKey: contract({
    send: (c, headers) => c.DELETE('/api_keys/{id}', { params: { path: { id: apiKeyId } }, body: body('revokeApiKey'), headers }),
    example: 'revoked',
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'ApiKey'>>>>().toEqualTypeOf<true>(),
  }),
  listPublishableKeys: contract({
    send: (c, headers) => c.GET('/publishable_keys', { params: { query: { limit: 20 } }, headers }),
    error: { status: 403, example: 'insufficient_scope' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'PublishableKeyList'>>>().toEqualTypeOf<true>(),
  }),
  createPublishableKey: contract({
    send: (c, headers) => c.POST('/publishable_keys', { body: body('createPublishableKey'), headers }),
    error: { status: 422, example: 'invalid_origin' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'PublishableKey'>>>>().toEqualTypeOf<true>(),
  }),
  getPublishableKey: contract({
    send: (c, headers) => c.GET('/publishable_keys/{id}', { params: { path: { id: publishableKeyId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'PublishableKey'>>>>().toEqualTypeOf<true>(),
  }),
  updatePublishableKey: contract({
    send: (c, headers) =>
      c.PATCH('/publishable_keys/{id}', { params: { path: { id: publishableKeyId } }, body: body('updatePublishableKey'), headers }),
    error: { status: 409, example: 'key_revoked' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'PublishableKey'>>>>().toEqualTypeOf<true>(),
  }),
  revokePublishableKey: contract({
    send: (c, headers) => c.DELETE('/publishable_keys/{id}', { params: { path: { id: publishableKeyId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'PublishableKey'>>>>().toEqualTypeOf<true>(),
  }),
  listAuditEvents: contract({
    send: (c, headers) => c.GET('/audit_events', { params: { query: { type: 'api_key.revoked', limit: 20 } }, headers }),
    error: { status: 403, example: 'insufficient_scope' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'AuditEventList'>>>().toEqualTypeOf<true>(),
  }),

  // Events
  listEvents: contract({
    send: (c, headers) =>
      c.GET('/events', {
        params: { query: { type: ['form.created', 'form.deleted'], created_gte: timestamp, created_lt: timestamp, limit: 20 } },
        headers,
      }),
    error: { status: 401, example: 'invalid_api_key' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'EventList'>>>().toEqualTypeOf<true>(),
  }),
  getEvent: contract({
    send: (c, headers) => c.GET('/events/{id}', { params: { path: { id: eventId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Event'>>>>().toEqualTypeOf<true>(),
  }),

  // Team
  listMembers: contract({
    send: (c, headers) => c.GET('/team/members', { headers }),
    error: { status: 401, example: 'invalid_api_key' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'MemberList'>>>().toEqualTypeOf<true>(),
  }),
  removeMember: contract({
    send: (c, headers) => c.DELETE('/team/members/{id}', { params: { path: { id: memberId } }, headers }),
    example: 'member',
    error: { status: 409, example: 'last_admin' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'Deleted'>>>().toEqualTypeOf<true>(),
  }),
  listInvites: contract({
    send: (c, headers) => c.GET('/team/invites', { params: { query: { status: 'pending' } }, headers }),
    error: { status: 401, example: 'invalid_api_key' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'InviteList'>>>().toEqualTypeOf<true>(),
  }),
  createInvite: contract({
    send: (c, headers) => c.POST('/team/invites', { body: body('createInvite'), headers }),
    error: { status: 409, example: 'member_exists' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Invite'>>>>().toEqualTypeOf<true>(),
  }),
  revokeInvite: contract({
    send: (c, headers) => c.DELETE('/team/invites/{id}', { params: { path: { id: inviteId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Invite'>>>>().toEqualTypeOf<true>(),
  }),
  resendInvite: contract({
    send: (c, headers) => c.POST('/team/invites/{id}/resend', { params: { path: { id: inviteId } }, headers }),
    error: { status: 409, example: 'invite_closed' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Invite'>>>>().toEqualTypeOf<true>(),
  }),

  // Integrations
  listIntegrations: contract({
    send: (c, headers) => c.GET('/integrations', { params: { query: { limit: 20 } }, headers }),
    error: { status: 401, example: 'invalid_api_key' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'IntegrationList'>>>().toEqualTypeOf<true>(),
  }),
  createIntegration: contract({
    send: (c, headers) => c.POST('/integrations', { body: body('createIntegration'), headers }),
    error: { status: 422, example: 'invalid_webhook_url' },
    // The signing secret is shown once, in this response only (an inline allOf member, not a named schema).
    typed: (data) =>
      expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Integration'> & { signing_secret: string }>>>().toEqualTypeOf<true>(),
  }),
  getIntegration: contract({
    send: (c, headers) => c.GET('/integrations/{id}', { params: { path: { id: integrationId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Integration'>>>>().toEqualTypeOf<true>(),
  }),
  updateIntegration: contract({
    send: (c, headers) =>
      c.PATCH('/integrations/{id}', { params: { path: { id: integrationId } }, body: body('updateIntegration'), headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Integration'>>>>().toEqualTypeOf<true>(),
  }),
  deleteIntegration: contract({
    send: (c, headers) => c.DELETE('/integrations/{id}', { params: { path: { id: integrationId } }, headers }),
    example: 'integration',
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'Deleted'>>>().toEqualTypeOf<true>(),
  }),
  dispatchIntegration: contract({
    send: (c, headers) =>
      c.POST('/integrations/{id}/dispatch', { params: { path: { id: integrationId } }, body: body('dispatchIntegration'), headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'IntegrationLog'>>>>().toEqualTypeOf<true>(),
  }),
  rotateIntegrationSecret: contract({
    send: (c, headers) =>
      c.POST('/integrations/{id}/rotate_secret', {
        params: { path: { id: integrationId } },
        body: body('rotateIntegrationSecret'),
        headers,
      }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) =>
      expectTypeOf<
        Interchangeable<
          typeof data,
          WithRequestId<Schema<'Integration'> & { signing_secret: string; previous_secret_expires_at: string | null }>
        >
      >().toEqualTypeOf<true>(),
  }),
  listIntegrationLogs: contract({
    send: (c, headers) =>
      c.GET('/integrations/{id}/logs', {
        params: { path: { id: integrationId }, query: { status: 'failed', event_type: 'submission.created' } },
        headers,
      }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'IntegrationLogList'>>>().toEqualTypeOf<true>(),
  }),

  // Respondents: the public operations (Prism checks that a Bearer credential is there, not which kind)
  getPublicForm: contract({
    send: (c, headers) => c.GET('/public/forms/{id}', { params: { path: { id: formId } }, headers }),
    error: { status: 404, example: 'resource_not_found' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'PublicForm'>>>>().toEqualTypeOf<true>(),
  }),
  createPublicSubmission: contract({
    send: (c, headers) => c.POST('/public/submissions', { body: body('createPublicSubmission'), headers }),
    error: { status: 403, example: 'secret_key_not_allowed' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'PublicSubmissionCreated'>>>>().toEqualTypeOf<true>(),
  }),
  updatePublicSubmission: contract({
    send: (c, headers) =>
      c.PATCH('/public/submissions/{id}', { params: { path: { id: submissionId } }, body: body('updatePublicSubmission'), headers }),
    error: { status: 403, example: 'invalid_resume_token' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'PublicSubmission'>>>>().toEqualTypeOf<true>(),
  }),
  createPublicChallenge: contract({
    send: (c, headers) => c.POST('/public/challenges', { headers }),
    error: { status: 403, example: 'secret_key_not_allowed' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, WithRequestId<Schema<'Challenge'>>>>().toEqualTypeOf<true>(),
  }),

  // Test data
  resetTestData: contract({
    send: (c, headers) => c.DELETE('/test_data', { headers }),
    error: { status: 403, example: 'live_resource' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'TestDataReset'>>>().toEqualTypeOf<true>(),
  }),

  // OAuth: a form-encoded body. openapi-fetch's default serializer URL-encodes the body when the request's
  // Content-Type says so, so the typed client needs no custom bodySerializer.
  createOAuthToken: contract({
    send: (c, headers) =>
      c.POST('/oauth/token', {
        body: body('createOAuthToken', 'authorization_code'),
        headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
    error: { status: 400, example: 'invalid_grant' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'OAuthToken'>>>().toEqualTypeOf<true>(),
  }),
  revokeOAuthToken: contract({
    send: (c, headers) =>
      c.POST('/oauth/revoke', {
        body: body('revokeOAuthToken', 'refresh_token'),
        headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
    error: { status: 400, example: 'invalid_request' },
    typed: (data) => expectTypeOf<Interchangeable<typeof data, Schema<'OAuthRevocation'>>>().toEqualTypeOf<true>(),
  }),
} satisfies Record<PathOperationId, AnyContractCase>;

/** Headers every documented response declares, and so every mocked response carries. */
function expectEnvelopeHeaders(operationId: string, status: number, response: Response): void {
  const declared = Object.keys(documentedResponse(operationId, status).headers ?? {}).map((name) => name.toLowerCase());
  const required = ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
  if (status === 201) required.push('location');
  if (status === 429) required.push('retry-after');
  expect(declared).toEqual(expect.arrayContaining(required));
  expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
  for (const name of required) expect(response.headers.get(name), `${name} header`).not.toBeNull();
  // v1 is current: production sends no deprecation headers, so neither does the mock.
  for (const name of lifecycleHeaders) expect(response.headers.get(name), `${name} header`).toBeNull();
  // A client that honours the rate-limit headers is not throttled by the mock's.
  const limit = Number(response.headers.get('x-ratelimit-limit'));
  const remaining = Number(response.headers.get('x-ratelimit-remaining'));
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  expect(remaining, 'X-RateLimit-Remaining').toBeGreaterThan(0);
  expect(remaining, 'X-RateLimit-Remaining').toBeLessThan(limit);
  expect(reset * 1000, 'X-RateLimit-Reset').toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
}

/** On a wrong status, show what came back (Prism's violation list, with `--errors`) instead of only the number. */
function expectStatus(result: FetchResultLike, status: number): void {
  expect(result.response.status, `HTTP ${result.response.status}: ${JSON.stringify(result.error ?? result.data)}`).toBe(status);
}

describe('Prism serves the document', () => {
  it('when the document gains or loses an operation, then this table must follow (every operationId has a case)', () => {
    const documented = documentedOperations()
      .map((op) => op.operationId)
      .sort();
    expect(Object.keys(cases).sort()).toEqual(documented);
  });
});

describe.concurrent.each(Object.entries(cases))('%s', (operationId, c) => {
  it('when called with valid input, then the documented status and example come back, typed', async () => {
    const status = successStatus(operationId);
    const { mediaType } = responseContent(operationId, status);
    const example = responseExample(operationId, status, c.example);

    const result = await c.send(client, { Prefer: `example=${example.name}` });

    expectStatus(result, status);
    expect(result.response.headers.get('content-type')).toContain(mediaType);
    expectEnvelopeHeaders(operationId, status, result.response);
    const data = unwrap(result);
    expect(data).toEqual(example.value);
    c.typed(data);
  });

  it(`when Prism is asked for the documented ${c.error.status} ${c.error.example}, then a problem body comes back and unwrap throws FormFunnelError`, async () => {
    const { status, example: exampleName } = c.error;
    const { mediaType, examples } = responseContent(operationId, status);
    expect(mediaType).toBe('application/problem+json');
    const example = responseExample(operationId, status, exampleName).value as Schema<'Problem'>;

    const result = await c.send(client, { Prefer: `code=${status}, example=${exampleName}` });

    expectStatus(result, status);
    expect(result.response.headers.get('content-type')).toContain('application/problem+json');
    expectEnvelopeHeaders(operationId, status, result.response);
    expect(result.error).toMatchObject({
      type: expect.any(String),
      code: expect.any(String),
      message: expect.any(String),
      request_id: expect.stringMatching(/^req_[0-9A-Za-z]{24}$/),
    });
    expect(Object.values(examples)).toContainEqual(result.error);
    expect(result.error).toEqual(example);

    const thrown = (() => {
      try {
        unwrap(result);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(FormFunnelError);
    expect(thrown).toMatchObject({
      status,
      type: example.type,
      code: example.code,
      requestId: example.request_id,
      message: example.message,
    });
  });
});

const exampleOf = (mediaType: string) => Object.values(responseContent('exportSubmissions', 200, mediaType).examples)[0] as string;

describe('the mock as a partner meets it', () => {
  it('when a partner swaps only the host of the production base URL, then the mock answers under /v1 (and not without it)', async () => {
    expect(new URL(prism.url).pathname).toBe(new URL(document.servers[0]!.url.replace('{instance}', 'host.invalid')).pathname);
    const headers = { Authorization: `Bearer ${apiKey}` };
    const underV1 = await fetch(`${prism.url}/forms`, { headers });
    expect(underV1.status).toBe(200);
    expect(await underV1.json()).toMatchObject({ object: 'list' });
    const withoutV1 = await fetch(`${new URL(prism.url).origin}/forms`, { headers });
    await withoutV1.body?.cancel();
    expect(withoutV1.status).toBe(404);
  });

  it('when the shared mock document is written again (as npm run mock:bundle does), then a running mock keeps answering', async () => {
    // Prism restarts when the file it mocks changes (after 500 ms of quiet) and refuses connections while it reloads.
    // Each test mock has a file of its own, so rewriting the shared one, here or by another worker, restarts none.
    writeMockDocument();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(prism.output()).not.toContain('Restarting Prism');
    const res = await fetch(`${prism.url}/me`, { headers: { Authorization: `Bearer ${apiKey}` } });
    await res.body?.cancel();
    expect(res.status).toBe(200);
  });

  it('when a partner asks the mock for the export as CSV, then the documented CSV example comes back as text/csv', async () => {
    const res = await fetch(`${prism.url}/submissions/export?form_id=${formId}&format=csv`, {
      headers: { Authorization: `Bearer ${apiKey}`, Accept: 'text/csv' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(await res.text()).toBe(exampleOf('text/csv'));
  });

  it('when the document lists the mock as a server, then its URL is the mock base URL with /v1', () => {
    const urls = document.servers.map((server) => server.url);
    expect(urls).toContain(`http://127.0.0.1:4010${new URL(prism.url).pathname}`);
  });

  it('when every list operation is paginated to the end against the mock, then the loop ends with the example items', async () => {
    const lists = [
      { path: '/forms', operationId: 'listForms' },
      { path: '/submissions', operationId: 'listSubmissions' },
      { path: '/audit_events', operationId: 'listAuditEvents' },
      { path: '/folders', operationId: 'listFolders' },
      { path: '/api_keys', operationId: 'listApiKeys' },
      { path: '/integrations', operationId: 'listIntegrations' },
      { path: '/transfers', operationId: 'listTransfers' },
      { path: '/events', operationId: 'listEvents' },
    ] as const;
    for (const { path: listPath, operationId } of lists) {
      const example = responseExample(operationId, 200).value as { data: unknown[] };
      const seen: unknown[] = [];
      for await (const item of paginate(client, listPath)) {
        seen.push(item);
        // A loop that does not end would spin forever: stop well past the example's length and fail below.
        if (seen.length > 10 * example.data.length + 10) break;
      }
      expect(seen, operationId).toEqual(example.data);
    }
  });

  it('when a list example says there is more, then a pagination loop could not end: every list example ends', () => {
    const listExamples = documentedOperations().flatMap((op) => {
      const status = String(successStatus(op.operationId));
      const content = Object.values(deref(op.responses[status]!).content ?? {});
      return content.flatMap((media) =>
        Object.entries(examplesOf(media)).map(([name, value]) => ({ where: `${op.operationId} ${name}`, value })),
      );
    });
    const lists = listExamples.filter(({ value }) => (value as { object?: string }).object === 'list');
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.filter(({ value }) => (value as { has_more: boolean }).has_more).map(({ where }) => where)).toEqual([]);
  });

  it("when POST /forms gets a malformed body, then the mock answers with a createForm example (not another operation's)", async () => {
    const response = await fetch(`${prism.url}/forms`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ nam: 'x' }),
    });
    const problem = (await response.json()) as Schema<'Problem'>;
    expect(response.status).toBe(422);
    expect(Object.values(responseContent('createForm', 422).examples)).toContainEqual(problem);
    expect(JSON.stringify(problem)).not.toContain('/expires_at');
  });

  it('when an operation documents 422 examples, then each names only fields that operation takes', () => {
    const misplaced: string[] = [];
    for (const op of documentedOperations()) {
      if (!op.responses['422']) continue;
      const bodySchema = op.requestBody ? Object.values(deref(op.requestBody).content)[0]?.schema : undefined;
      const bodyFields = new Set(Object.keys(flattenProperties(bodySchema)));
      const queryFields = new Set(
        (op.parameters ?? [])
          .map((p) => deref(p as { name: string; in: string }))
          .filter((p) => p.in === 'query')
          .map((p) => p.name),
      );
      for (const [name, value] of Object.entries(responseContent(op.operationId, 422).examples)) {
        for (const issue of (value as Schema<'Problem'>).details?.errors ?? []) {
          // The whole body (a file that is not the image it says): no field to name.
          if (issue.location === 'body' && issue.pointer === '') continue;
          const field = issue.pointer.split('/')[1] ?? '';
          const fields = issue.location === 'query' ? queryFields : bodyFields;
          if (!fields.has(field)) misplaced.push(`${op.operationId} ${name}: ${issue.location} ${issue.pointer}`);
        }
      }
    }
    expect(misplaced).toEqual([]);
  });
});

/** The properties of a body schema, through `$ref`s and `allOf`/`oneOf`/`anyOf` members. */
function flattenProperties(schema: unknown): Record<string, unknown> {
  if (schema === undefined) return {};
  const node = deref(schema as object) as { properties?: Record<string, unknown>; allOf?: unknown[]; oneOf?: unknown[]; anyOf?: unknown[] };
  return Object.assign(
    {},
    node.properties ?? {},
    ...[...(node.allOf ?? []), ...(node.oneOf ?? []), ...(node.anyOf ?? [])].map((member) => flattenProperties(member)),
  );
}

/**
 * Webhooks are requests the service sends, not operations Prism serves: their examples are checked against
 * their schemas instead (the linters validate examples too; this keeps the check beside the contract tests).
 */
describe('webhooks', () => {
  type Parameter = { name: string; schema: object; example?: unknown; examples?: Record<string, unknown> };
  type Webhook = {
    post: {
      parameters?: Array<Parameter | { $ref: string }>;
      requestBody: { content: Record<string, { examples?: Record<string, unknown> }> };
    };
  };
  const documentedWebhooks = Object.entries((document.webhooks ?? {}) as Record<string, Webhook>);

  it('when the document lists event types, then each has a webhook and each webhook is an event type', () => {
    const eventTypes = document.components.schemas.EventType?.enum as string[];
    expect(documentedWebhooks.map(([name]) => name).sort()).toEqual([...eventTypes].sort());
  });

  describe.each(documentedWebhooks)('%s', (name, webhook) => {
    const bodyPointer = ['webhooks', name, 'post', 'requestBody', 'content', 'application/json', 'schema'];

    it('when its body examples are validated against its body schema, then every one is valid and has its event type', () => {
      const media = webhook.post.requestBody.content['application/json'];
      expect(media, 'an application/json body').toBeDefined();
      const examples = Object.entries(examplesOf(media!));
      expect(examples.length).toBeGreaterThan(0);
      for (const [exampleName, value] of examples) {
        expect(schemaErrors(pointer(bodyPointer), value), `example ${exampleName}`).toEqual([]);
        expect(value, `example ${exampleName}`).toMatchObject({ object: 'event', type: name });
      }
      // The validator is not vacuous: an empty object is not an event.
      expect(schemaErrors(pointer(bodyPointer), {})).not.toEqual([]);
    });

    it('when its header parameters have examples, then they are valid (and X-Service-Signature is documented with one)', () => {
      const parameters = (webhook.post.parameters ?? []).map((parameter) => deref<Parameter>(parameter));
      expect(parameters.map((parameter) => parameter.name)).toContain('X-Service-Signature');
      for (const [index, parameter] of parameters.entries()) {
        const values = [
          ...(parameter.example === undefined ? [] : [parameter.example]),
          ...Object.values(examplesOf({ examples: parameter.examples ?? {} })),
        ];
        if (parameter.name === 'X-Service-Signature') expect(values.length, 'an X-Service-Signature example').toBeGreaterThan(0);
        // A parameter given as a $ref is validated through the component it points to.
        const raw = webhook.post.parameters![index]!;
        const schemaPath =
          '$ref' in raw ? [...refSegments(raw.$ref), 'schema'] : ['webhooks', name, 'post', 'parameters', String(index), 'schema'];
        for (const value of values) expect(schemaErrors(pointer(schemaPath), value), `${parameter.name} example`).toEqual([]);
      }
    });
  });
});
