/**
 * Folders: create, list, get, delete (only when empty), test-mode separation, and keys attached to a folder.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiKeyCreated, createFolder, createForm, type Folder, type Form, formBody } from '../support/factories.js';
import { absentId, expectEnvelopeHeaders, expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';

const api = useWatchedApi({ rateLimits: generousLimits });

const idsOf = (body: { data: Array<{ id: string }> }) => body.data.map((item) => item.id);

describe('folders', () => {
  it('when a folder is created, then 201 with Location, and it can be read and listed', async () => {
    const res = await api.call('post', '/v1/folders').send({ name: 'Marketing' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'folder', name: 'Marketing', test: false, form_count: 0 });
    expect(res.body.id).toMatch(/^fld_[0-9A-Za-z]{24}$/);
    expect(res.headers.location).toBe(`/v1/folders/${res.body.id}`);
    expectEnvelopeHeaders(res);

    const got = await api.call('get', `/v1/folders/${res.body.id}`);
    expect(got.body).toMatchObject({ id: res.body.id, name: 'Marketing' });
    const list = await api.call('get', '/v1/folders');
    expect(list.body.object).toBe('list');
    expect(idsOf(list.body)).toContain(res.body.id);
  });

  it('when a folder name is blank, then 400', async () => {
    expectProblem(await api.call('post', '/v1/folders').send({ name: '   ' }), 400, 'validation_error', 'invalid_parameters');
  });

  it('when forms are put in a folder, then form_count counts them and the list can be filtered by folder', async () => {
    const folder = await createFolder(api, 'Counted');
    const a = await createForm(api, { name: 'In folder A', folder_id: folder.id });
    await createForm(api, { name: 'In folder B', folder_id: folder.id });
    await createForm(api, { name: 'Outside' });
    expect((await api.call('get', `/v1/folders/${folder.id}`)).body.form_count).toBe(2);
    const filtered = await api.call('get', `/v1/forms?folder_id=${folder.id}`);
    expect(filtered.body.data).toHaveLength(2);
    expect(idsOf(filtered.body)).toContain(a.id);
  });

  it('when a form names a folder that does not exist, then 422 invalid_value', async () => {
    const res = await api.call('post', '/v1/forms').send(formBody('Lost', { folder_id: absentId('fld') }));
    expectProblem(res, 422, 'validation_error', 'invalid_value');
    expect(res.body.details.errors).toEqual([expect.objectContaining({ pointer: '/folder_id', code: 'not_found' })]);
  });

  it('when a folder still holds forms, then deleting it gets 409 folder_not_empty; once empty, it is deleted', async () => {
    const folder = await createFolder(api, 'Busy');
    const form = await createForm(api, { name: 'Keeps folder busy', folder_id: folder.id });
    expectProblem(await api.call('delete', `/v1/folders/${folder.id}`), 409, 'conflict_error', 'folder_not_empty');
    expect((await api.call('get', `/v1/folders/${folder.id}`)).status).toBe(200);

    expect((await api.call('patch', `/v1/forms/${form.id}`).send({ folder_id: null })).body.folder_id).toBeNull();
    const res = await api.call('delete', `/v1/folders/${folder.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: folder.id, object: 'folder', deleted: true, request_id: res.headers['x-request-id'] });
    expectProblem(await api.call('get', `/v1/folders/${folder.id}`), 404, 'not_found', 'resource_not_found');
    const audit = await api.call('get', '/v1/audit_events?type=folder.deleted');
    expect(audit.body.data.map((event: { target: { id: string } }) => event.target.id)).toContain(folder.id);
  });

  it('when a test key makes a folder, then live keys cannot see it and test keys can', async () => {
    const sandbox = await createFolder(api, 'Sandbox folder', api.workspace.test_admin_key);
    expect(sandbox.test).toBe(true);
    expectProblem(await api.call('get', `/v1/folders/${sandbox.id}`), 404, 'not_found', 'resource_not_found');
    expect(idsOf((await api.call('get', '/v1/folders?limit=100')).body)).not.toContain(sandbox.id);
    expect(idsOf((await api.call('get', '/v1/folders?limit=100', api.workspace.test_admin_key)).body)).toContain(sandbox.id);
  });

  it('when a test key deletes a live folder, then 403 live_resource', async () => {
    const live = await createFolder(api, 'Live folder');
    expectProblem(
      await api.call('delete', `/v1/folders/${live.id}`, api.workspace.test_admin_key),
      403,
      'permission_error',
      'live_resource',
    );
    expect((await api.call('get', `/v1/folders/${live.id}`)).status).toBe(200);
  });
});

describe('folder-attached keys', () => {
  let folder: Folder;
  let otherFolder: Folder;
  let inside: Form;
  let outside: Form;
  let unfiled: Form;
  let key: ApiKeyCreated;

  beforeAll(async () => {
    folder = await createFolder(api, 'Attached folder');
    otherFolder = await createFolder(api, 'Other folder');
    inside = await createForm(api, { name: 'Inside the folder', folder_id: folder.id });
    outside = await createForm(api, { name: 'Outside the folder', folder_id: otherFolder.id });
    unfiled = await createForm(api, { name: 'In no folder' });
    key = await api.createKey({ environment: 'live', scope: 'read_write', attachment: { type: 'folder', folder_id: folder.id } });
  });

  it('when it lists forms, then only the forms of its folder come back', async () => {
    const res = await api.call('get', '/v1/forms?limit=100', key.secret);
    expect(res.status).toBe(200);
    expect(idsOf(res.body)).toEqual([inside.id]);
  });

  it('when it reaches a form outside its folder, then 403 form_not_attached', async () => {
    expect((await api.call('get', `/v1/forms/${inside.id}`, key.secret)).status).toBe(200);
    expectProblem(await api.call('get', `/v1/forms/${outside.id}`, key.secret), 403, 'permission_error', 'form_not_attached');
    expectProblem(
      await api.call('patch', `/v1/forms/${outside.id}`, key.secret).send({ name: 'x' }),
      403,
      'permission_error',
      'form_not_attached',
    );
  });

  it('when it reaches a form that is in no folder, then 403 form_not_attached, and the form is not listed', async () => {
    expect(idsOf((await api.call('get', '/v1/forms?limit=100', key.secret)).body)).not.toContain(unfiled.id);
    expectProblem(await api.call('get', `/v1/forms/${unfiled.id}`, key.secret), 403, 'permission_error', 'form_not_attached');
    expectProblem(
      await api.call('patch', `/v1/forms/${unfiled.id}`, key.secret).send({ name: 'Taken over' }),
      403,
      'permission_error',
      'form_not_attached',
    );
    expectProblem(await api.call('delete', `/v1/forms/${unfiled.id}`, key.secret), 403, 'permission_error', 'form_not_attached');
    const submission = await api
      .call('post', '/v1/submissions', key.secret)
      .send({ form_id: unfiled.id, answers: { email: 'a@b.example' } });
    expectProblem(submission, 403, 'permission_error', 'form_not_attached');
    expect((await api.call('get', `/v1/forms/${unfiled.id}`)).body).toMatchObject({ name: 'In no folder', folder_id: null });
  });

  it('when it lists submissions, then those of a form in no folder are not among them', async () => {
    const mine = await api.call('post', '/v1/submissions').send({ form_id: inside.id, answers: { email: 'in@folder.example' } });
    const theirs = await api.call('post', '/v1/submissions').send({ form_id: unfiled.id, answers: { email: 'no@folder.example' } });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    const listed = idsOf((await api.call('get', '/v1/submissions?limit=100', key.secret)).body);
    expect(listed).toContain(mine.body.id);
    expect(listed).not.toContain(theirs.body.id);
    expectProblem(await api.call('get', `/v1/submissions/${theirs.body.id}`, key.secret), 403, 'permission_error', 'form_not_attached');
  });

  it('when it creates a form, then the form goes into its folder; another folder gets 403', async () => {
    const created = await createForm(api, { name: 'Created by folder key' }, key.secret);
    expect(created.folder_id).toBe(folder.id);
    const res = await api.call('post', '/v1/forms', key.secret).send(formBody('Elsewhere', { folder_id: otherFolder.id }));
    expectProblem(res, 403, 'permission_error', 'form_not_attached');
  });

  it('when it moves a form out of its folder, then 403 form_not_attached', async () => {
    const res = await api.call('patch', `/v1/forms/${inside.id}`, key.secret).send({ folder_id: null });
    expectProblem(res, 403, 'permission_error', 'form_not_attached');
  });

  it('when it lists or reads folders, then it sees only its own', async () => {
    const list = await api.call('get', '/v1/folders', key.secret);
    expect(idsOf(list.body)).toEqual([folder.id]);
    expect((await api.call('get', `/v1/folders/${folder.id}`, key.secret)).status).toBe(200);
    expectProblem(await api.call('get', `/v1/folders/${otherFolder.id}`, key.secret), 403, 'permission_error', 'form_not_attached');
    expectProblem(await api.call('post', '/v1/folders', key.secret).send({ name: 'New' }), 403, 'permission_error', 'form_not_attached');
  });

  it('when its folder is deleted, then the key is revoked (cause folder_deleted) and refused', async () => {
    const doomed = await createFolder(api, 'Doomed');
    const attached = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'folder', folder_id: doomed.id } });
    expect((await api.call('get', '/v1/me', attached.secret)).status).toBe(200);
    expect((await api.call('delete', `/v1/folders/${doomed.id}`)).status).toBe(200);
    expectProblem(await api.call('get', '/v1/me', attached.secret), 401, 'authentication_error', 'invalid_api_key');
    expect((await api.call('get', `/v1/api_keys/${attached.id}`)).body).toMatchObject({
      status: 'revoked',
      revocation_cause: 'folder_deleted',
    });
  });
});

describe('test-only forms in live folders', () => {
  it('when a test key files a form in a live folder, then the live folder neither counts it nor is kept alive by it', async () => {
    const folder = (await api.call('post', '/v1/folders').send({ name: 'Shared' })).body;
    const testForm = await api.call('post', '/v1/forms', api.workspace.test_admin_key).send({ name: 'Sandbox only', folder_id: folder.id });
    expect(testForm.status).toBe(201);
    expect((await api.call('get', `/v1/folders/${folder.id}`)).body.form_count).toBe(0);
    expect((await api.call('delete', `/v1/folders/${folder.id}`)).status).toBe(200);
    const after = await api.call('get', `/v1/forms/${testForm.body.id}`, api.workspace.test_admin_key);
    expect(after.status).toBe(200);
    expect(after.body.folder_id).toBeNull();
  });
});
