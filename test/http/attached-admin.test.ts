import { beforeAll, describe, expect, it } from 'vitest';
import { useWatchedApi } from '../support/http-checks.js';

const api = useWatchedApi({ rateLimits: { perKeyPerSecond: 1000, perWorkspacePerMinute: 100_000, failedAuthPerAddressPerMinute: 1000 } });
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

const administration: Array<[string, 'get' | 'post' | 'delete', string, Record<string, unknown>?]> = [
  ['create an API key', 'post', '/v1/api_keys', { name: 'escalate', environment: 'live', scope: 'admin' }],
  ['list API keys', 'get', '/v1/api_keys'],
  ['read the audit log', 'get', '/v1/audit_events'],
  ['list members', 'get', '/v1/team/members'],
  ['list invites', 'get', '/v1/team/invites'],
  ['invite a member', 'post', '/v1/team/invites', { email: 'new@acme.test', role: 'admin' }],
  ['reset test data', 'delete', '/v1/test_data'],
];

describe('admin keys attached to a form or folder', () => {
  for (const [what, method, path, body] of administration) {
    it(`when such a key tries to ${what}, then 403 form_not_attached`, async () => {
      for (const key of [formKey, folderKey]) {
        const res = await api.call(method, path, key).send(body);
        expect(res.status).toBe(403);
        expect(res.body).toMatchObject({ type: 'permission_error', code: 'form_not_attached' });
      }
    });
  }

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
