import { beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../src/http/contract-document.js';
import type { OperationId } from '../../src/http/handlers/types.js';
import { createForm, createIntegration, PUBLIC_URL, submit } from '../support/factories.js';
import { useWatchedApi } from '../support/http-checks.js';
import { pngImage } from '../support/images.js';
import { testWebhookUrls } from './integrations-support.js';

const api = useWatchedApi(() => ({
  rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 100_000, failedAuthPerAddressPerMinute: 1000 },
  webhookUrls: testWebhookUrls(),
}));
let formKey: string;
let folderKey: string;
let formId: string;
let folderId: string;

beforeAll(async () => {
  formId = (await api.call('post', '/v1/forms').send({ name: 'Attached' })).body.id;
  folderId = (await api.call('post', '/v1/folders').send({ name: 'Partners' })).body.id;
  formKey = (await api.createKey({ environment: 'live', scope: 'admin', attachment: { type: 'form', form_id: formId } })).secret;
  folderKey = (await api.createKey({ environment: 'live', scope: 'admin', attachment: { type: 'folder', folder_id: folderId } })).secret;
});

/** A request: its method, path and JSON body, or a file body with its media type (a logo). */
type Call = ['get' | 'post' | 'patch' | 'delete', string, Record<string, unknown>?] | ['put', string, Buffer, string];

/**
 * Every operation of the document, and how a form- or folder-attached key is kept to its forms there. A new
 * operation fails the completeness test below until it is classified, so a workspace-wide one cannot ship
 * without `assertWorkspaceWide` unnoticed:
 * - `workspace`: reaches beyond any one form (keys, team, audit log, usage, transfers, erasure); an attached key gets
 *   403 `form_not_attached` before anything is looked up (the ids may not exist).
 * - `elsewhere`: acts on one form or on something of one form; the call given targets another form's (not in the
 *   folder either), and the attached keys get 403 `form_not_attached`.
 * - `filtered`: a list (or a lookup in one) that an attached key sees only its forms' part of; tested where it lives.
 */
type Reach = { workspace: Call } | { elsewhere: () => Call } | { filtered: string };

let otherFormId: string;
let otherFolderId: string;
let otherSubmissionId: string;
let otherIntegrationId: string;
let otherRescoreJobId: string;

const reach: Record<OperationId, Reach> = {
  listForms: { filtered: 'test/http/folders.test.ts' },
  createForm: { elsewhere: () => ['post', '/v1/forms', { name: 'Beside', folder_id: otherFolderId }] },
  getForm: { elsewhere: () => ['get', `/v1/forms/${otherFormId}`] },
  updateForm: { elsewhere: () => ['patch', `/v1/forms/${otherFormId}`, { name: 'Taken over' }] },
  deleteForm: { elsewhere: () => ['delete', `/v1/forms/${otherFormId}`] },
  listFormVersions: { elsewhere: () => ['get', `/v1/forms/${otherFormId}/versions`] },
  getFormVersion: { elsewhere: () => ['get', `/v1/forms/${otherFormId}/versions/1`] },
  restoreFormVersion: { elsewhere: () => ['post', `/v1/forms/${otherFormId}/versions/1/restore`] },
  setFormLogo: { elsewhere: () => ['put', `/v1/forms/${otherFormId}/logo`, pngImage(32, 32), 'image/png'] },
  deleteFormLogo: { elsewhere: () => ['delete', `/v1/forms/${otherFormId}/logo`] },
  rescoreForm: { elsewhere: () => ['post', `/v1/forms/${otherFormId}/rescore`] },
  getRescoreJob: { elsewhere: () => ['get', `/v1/rescore_jobs/${otherRescoreJobId}`] },
  getAnalytics: { elsewhere: () => ['get', `/v1/analytics?form_id=${otherFormId}`] },
  transferForm: {
    workspace: ['post', '/v1/forms/form_000000000000000000000000/transfer', { workspace_id: 'ws_000000000000000000000000' }],
  },
  listTransfers: { workspace: ['get', '/v1/transfers'] },
  getTransfer: { workspace: ['get', '/v1/transfers/xfr_000000000000000000000000'] },
  acceptTransfer: { workspace: ['post', '/v1/transfers/xfr_000000000000000000000000/accept'] },
  declineTransfer: { workspace: ['post', '/v1/transfers/xfr_000000000000000000000000/decline'] },
  cancelTransfer: { workspace: ['post', '/v1/transfers/xfr_000000000000000000000000/cancel'] },
  listFolders: { filtered: 'test/http/folders.test.ts' },
  createFolder: { elsewhere: () => ['post', '/v1/folders', { name: 'Beside' }] },
  getFolder: { elsewhere: () => ['get', `/v1/folders/${otherFolderId}`] },
  updateFolder: { elsewhere: () => ['patch', `/v1/folders/${otherFolderId}`, { name: 'Renamed' }] },
  deleteFolder: { elsewhere: () => ['delete', `/v1/folders/${otherFolderId}`] },
  listSubmissions: { elsewhere: () => ['get', `/v1/submissions?form_id=${otherFormId}`] },
  exportSubmissions: { elsewhere: () => ['get', `/v1/submissions/export?form_id=${otherFormId}&format=ndjson`] },
  createSubmission: { elsewhere: () => ['post', '/v1/submissions', { form_id: otherFormId, answers: { email: 'a@b.test' } }] },
  getSubmission: { elsewhere: () => ['get', `/v1/submissions/${otherSubmissionId}`] },
  updateSubmission: { elsewhere: () => ['patch', `/v1/submissions/${otherSubmissionId}`, { answers: { company: 'Taken' } }] },
  deleteSubmission: { elsewhere: () => ['delete', `/v1/submissions/${otherSubmissionId}`] },
  rescoreSubmission: { elsewhere: () => ['post', `/v1/submissions/${otherSubmissionId}/rescore`] },
  eraseSubmissions: { workspace: ['post', '/v1/submissions/erase', { email: 'someone@acme.test' }] },
  getMe: { filtered: 'describes the calling key itself' },
  listApiKeys: { workspace: ['get', '/v1/api_keys'] },
  createApiKey: { workspace: ['post', '/v1/api_keys', { name: 'escalate', environment: 'live', scope: 'admin' }] },
  getApiKey: { workspace: ['get', '/v1/api_keys/key_000000000000000000000000'] },
  revokeApiKey: { workspace: ['delete', '/v1/api_keys/key_000000000000000000000000'] },
  listPublishableKeys: { workspace: ['get', '/v1/publishable_keys'] },
  createPublishableKey: {
    workspace: ['post', '/v1/publishable_keys', { name: 'escalate', environment: 'live', allowed_origins: ['https://a.example'] }],
  },
  getPublishableKey: { workspace: ['get', '/v1/publishable_keys/pk_000000000000000000000000'] },
  updatePublishableKey: {
    workspace: ['patch', '/v1/publishable_keys/pk_000000000000000000000000', { allowed_origins: ['https://a.example'] }],
  },
  revokePublishableKey: { workspace: ['delete', '/v1/publishable_keys/pk_000000000000000000000000'] },
  getPublicForm: { filtered: 'publishable keys only, with their own attachment: test/http/public-submissions.test.ts' },
  createPublicSubmission: { filtered: 'publishable keys only, with their own attachment: test/http/public-submissions.test.ts' },
  updatePublicSubmission: { filtered: 'publishable keys only, with their own attachment: test/http/public-submissions.test.ts' },
  createPublicChallenge: { filtered: 'publishable keys only; a challenge belongs to no form' },
  listAuditEvents: { workspace: ['get', '/v1/audit_events'] },
  getUsage: { workspace: ['get', '/v1/usage'] },
  listMembers: { workspace: ['get', '/v1/team/members'] },
  removeMember: { workspace: ['delete', '/v1/team/members/mem_000000000000000000000000'] },
  listInvites: { workspace: ['get', '/v1/team/invites'] },
  createInvite: { workspace: ['post', '/v1/team/invites', { email: 'new@acme.test', role: 'admin' }] },
  revokeInvite: { workspace: ['delete', '/v1/team/invites/inv_000000000000000000000000'] },
  resendInvite: { workspace: ['post', '/v1/team/invites/inv_000000000000000000000000/resend'] },
  listIntegrations: { filtered: 'test/http/integrations.test.ts' },
  createIntegration: { elsewhere: () => ['post', '/v1/integrations', { url: PUBLIC_URL, events: ['form.created'], form_id: otherFormId }] },
  getIntegration: { elsewhere: () => ['get', `/v1/integrations/${otherIntegrationId}`] },
  updateIntegration: { elsewhere: () => ['patch', `/v1/integrations/${otherIntegrationId}`, { url: PUBLIC_URL }] },
  deleteIntegration: { elsewhere: () => ['delete', `/v1/integrations/${otherIntegrationId}`] },
  dispatchIntegration: { elsewhere: () => ['post', `/v1/integrations/${otherIntegrationId}/dispatch`] },
  listIntegrationLogs: { elsewhere: () => ['get', `/v1/integrations/${otherIntegrationId}/logs`] },
  rotateIntegrationSecret: { elsewhere: () => ['post', `/v1/integrations/${otherIntegrationId}/rotate_secret`] },
  listEvents: { filtered: 'events of other forms are left out: test/http/events.test.ts' },
  getEvent: { filtered: 'an event of another form is not found: test/http/events.test.ts' },
  resetTestData: { workspace: ['delete', '/v1/test_data'] },
  createOAuthToken: { filtered: 'public: a client authenticates with its own credentials' },
  revokeOAuthToken: { filtered: 'public: a client authenticates with its own credentials' },
};

describe('admin keys attached to a form or folder', () => {
  it('when the document lists its operations, then each one is classified here', () => {
    expect(Object.keys(reach).sort()).toEqual(
      loadContract()
        .operations.map((operation) => operation.operationId)
        .sort(),
    );
  });

  describe('workspace-wide operations', () => {
    for (const [operationId, entry] of Object.entries(reach)) {
      if (!('workspace' in entry)) continue;
      const [method, path, body] = entry.workspace;
      it(`when such a key calls ${operationId}, then 403 form_not_attached`, async () => {
        for (const key of [formKey, folderKey]) {
          const res = await api.call(method, path, key).send(body);
          expect({ status: res.status, code: res.body.code }, `${operationId}: ${JSON.stringify(res.body)}`).toEqual({
            status: 403,
            code: 'form_not_attached',
          });
        }
      });
    }
  });

  describe('operations on another form', () => {
    beforeAll(async () => {
      otherFormId = (await createForm(api)).id;
      otherFolderId = (await api.call('post', '/v1/folders').send({ name: 'Elsewhere' })).body.id;
      otherSubmissionId = (await submit(api, { form_id: otherFormId, answers: { email: 'other@acme.test' }, status: 'partial' })).id;
      otherIntegrationId = (await createIntegration(api, { form_id: otherFormId })).id;
      const job = await api.call('post', `/v1/forms/${otherFormId}/rescore`);
      expect(job.status, JSON.stringify(job.body)).toBe(202);
      otherRescoreJobId = job.body.id;
    });

    for (const [operationId, entry] of Object.entries(reach)) {
      if (!('elsewhere' in entry)) continue;
      it(`when such a key calls ${operationId} for another form, then 403 form_not_attached`, async () => {
        const [method, path, body, type] = entry.elsewhere();
        for (const key of [formKey, folderKey]) {
          const call = api.call(method, path, key);
          const res = await (type === undefined ? call : call.set('Content-Type', type)).send(body);
          expect({ status: res.status, code: res.body.code }, `${operationId}: ${JSON.stringify(res.body)}`).toEqual({
            status: 403,
            code: 'form_not_attached',
          });
        }
      });
    }
  });

  it('when such a key tries to transfer its own form, then 403 form_not_attached and the form stays', async () => {
    const other = await api.otherWorkspace();
    const res = await api.call('post', `/v1/forms/${formId}/transfer`, formKey).send({ workspace_id: other.workspace_id });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('form_not_attached');
    expect((await api.call('get', `/v1/forms/${formId}`)).status).toBe(200);
  });

  it('when a form-attached key moves its form into a folder, then 403 form_not_attached and the folder keys still do not reach it', async () => {
    const res = await api.call('patch', `/v1/forms/${formId}`, formKey).send({ folder_id: folderId });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ type: 'permission_error', code: 'form_not_attached' });
    expect(res.body.message).toMatch(/attached to a form and cannot move forms between folders/);
    expect((await api.call('get', `/v1/forms/${formId}`)).body).toMatchObject({ folder_id: null, version: 1 });
    expect((await api.call('get', `/v1/forms/${formId}`, folderKey)).status).toBe(403);
  });

  it('when a form-attached key renames its form, then it still can', async () => {
    const res = await api.call('patch', `/v1/forms/${formId}`, formKey).send({ name: 'Attached, renamed' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Attached, renamed', folder_id: null });
  });

  it('when such a key reads its own form, then it still can', async () => {
    expect((await api.call('get', `/v1/forms/${formId}`, formKey)).status).toBe(200);
  });
});
