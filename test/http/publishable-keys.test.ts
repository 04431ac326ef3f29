/**
 * /v1/publishable_keys: keys for web pages, managed by admins; and the line between the two kinds of key: a
 * publishable key reaches the public operations only, a secret key or OAuth token never reaches them.
 */
import { describe, expect, it } from 'vitest';
import { createForm } from '../support/factories.js';
import { absentId, expectProblem, generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';

const api = useWatchedApi({ rateLimits: generousLimits });

describe('managing publishable keys', () => {
  it('when an admin creates a key, then 201 with its readable value, Location, and an audit event', async () => {
    const res = await api
      .call('post', '/v1/publishable_keys')
      .send({ name: 'Website forms', environment: 'live', allowed_origins: ['https://www.acme.example', 'https://acme.example:8443'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'publishable_key',
      name: 'Website forms',
      environment: 'live',
      allowed_origins: ['https://www.acme.example', 'https://acme.example:8443'],
      attachment: { type: 'workspace' },
      status: 'active',
      revoked_at: null,
      last_used_at: null,
    });
    expect(res.body.id).toMatch(/^pk_[0-9A-Za-z]{24}$/);
    expect(res.body.value).toMatch(/^svc_pub_live_[0-9A-Za-z]{24}$/);
    expect(res.headers.location).toBe(`/v1/publishable_keys/${res.body.id}`);

    const read = await api.call('get', `/v1/publishable_keys/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.value).toBe(res.body.value);
    const list = await api.call('get', '/v1/publishable_keys');
    expect(list.body.data.map((key: { id: string }) => key.id)).toContain(res.body.id);
    const audit = await api.call('get', '/v1/audit_events');
    expect(audit.body.data[0]).toMatchObject({ type: 'publishable_key.created', target: { type: 'publishable_key', id: res.body.id } });
  });

  it('when a test key allows localhost over http, then it is accepted, and its value says test', async () => {
    const key = await createPublishableKey(api, { environment: 'test', allowed_origins: ['http://localhost:5173', 'http://127.0.0.1'] });
    expect(key.value).toMatch(/^svc_pub_test_/);
  });

  it('when a live key allows http://localhost, a path or a default port, then 422 invalid_value names each origin', async () => {
    const res = await api.call('post', '/v1/publishable_keys').send({
      name: 'Bad',
      environment: 'live',
      allowed_origins: ['http://localhost:5173', 'https://acme.example:443', 'https://ok.example'],
    });
    expectProblem(res, 422, 'validation_error', 'invalid_value');
    expect(issuesOf(res)).toEqual(['body /allowed_origins/0 insecure_origin', 'body /allowed_origins/1 invalid_origin']);
  });

  it('when the origins are missing, empty, more than 20, a wildcard or carry a path, then 400', async () => {
    const many = Array.from({ length: 21 }, (_, index) => `https://site${index}.example`);
    for (const allowed_origins of [undefined, [], many, ['https://*.acme.example'], ['https://acme.example/'], ['*']]) {
      const res = await api.call('post', '/v1/publishable_keys').send({ name: 'Bad', environment: 'live', allowed_origins });
      expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    }
  });

  it('when the attachment names an unknown form, then 422; a form attachment is accepted on any plan', async () => {
    const res = await api.call('post', '/v1/publishable_keys').send({
      name: 'Bad',
      environment: 'live',
      allowed_origins: ['https://a.example'],
      attachment: { type: 'form', form_id: absentId('form') },
    });
    expectProblem(res, 422, 'validation_error', 'invalid_value');
    const form = await createForm(api);
    const key = await createPublishableKey(api, { environment: 'live', attachment: { type: 'form', form_id: form.id } });
    expect(key.attachment).toEqual({ type: 'form', form_id: form.id });
  });

  it('when a test admin key creates a live key, then 403 live_resource; a read key gets 403 insufficient_scope', async () => {
    const live = await api.call('post', '/v1/publishable_keys', api.workspace.test_admin_key).send({
      name: 'x',
      environment: 'live',
      allowed_origins: ['https://a.example'],
    });
    expectProblem(live, 403, 'permission_error', 'live_resource');
    const read = (await api.createKey({ environment: 'live', scope: 'read' })).secret;
    expectProblem(await api.call('get', '/v1/publishable_keys', read), 403, 'permission_error', 'insufficient_scope');
  });

  it('when a key is revoked, then it is listed revoked, audited, and refused with 401 from the next request on', async () => {
    const form = await createForm(api);
    const key = await createPublishableKey(api, { environment: 'live' });
    expect((await api.call('get', `/v1/public/forms/${form.id}`, key.value)).status).toBe(200);
    const revoked = await api.call('delete', `/v1/publishable_keys/${key.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: 'revoked' });
    expect(revoked.body.revoked_at).not.toBeNull();
    const again = await api.call('delete', `/v1/publishable_keys/${key.id}`);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    const refused = await api.call('get', `/v1/public/forms/${form.id}`, key.value);
    expectProblem(refused, 401, 'authentication_error', 'invalid_api_key');
    expect(refused.body.message).toMatch(/revoked/);
    const audit = await api.call('get', '/v1/audit_events');
    expect(audit.body.data.filter((event: { type: string }) => event.type === 'publishable_key.revoked')).toHaveLength(1);
  });

  it('when a key is unknown, then 404', async () => {
    expectProblem(await api.call('get', `/v1/publishable_keys/${absentId('pk')}`), 404, 'not_found', 'resource_not_found');
  });
});

describe('which key reaches which operations', () => {
  it('when a publishable key calls a secret-key operation, then 403 publishable_key_not_allowed', async () => {
    const key = await createPublishableKey(api, { environment: 'live' });
    for (const [method, path] of [
      ['get', '/v1/forms'],
      ['get', '/v1/me'],
      ['post', '/v1/submissions'],
      ['get', '/v1/publishable_keys'],
    ] as const) {
      expectProblem(await api.call(method, path, key.value).send({}), 403, 'permission_error', 'publishable_key_not_allowed');
    }
  });

  it('when a secret key calls a public operation, then 403 secret_key_not_allowed, valid or not', async () => {
    const form = await createForm(api);
    for (const secret of [api.workspace.live_admin_key, api.workspace.test_admin_key, `svc_live_${'x'.repeat(40)}`]) {
      const res = await api.call('get', `/v1/public/forms/${form.id}`, secret);
      expectProblem(res, 403, 'permission_error', 'secret_key_not_allowed');
    }
    const post = await api.call('post', '/v1/public/submissions').send({ form_id: form.id, answers: {} });
    expectProblem(post, 403, 'permission_error', 'secret_key_not_allowed');
  });

  it('when a public operation gets no key or an unknown one, then 401 invalid_api_key', async () => {
    const form = await createForm(api);
    expectProblem(await api.call('get', `/v1/public/forms/${form.id}`, null), 401, 'authentication_error', 'invalid_api_key');
    const unknown = `svc_pub_live_${'A'.repeat(24)}`;
    expectProblem(await api.call('get', `/v1/public/forms/${form.id}`, unknown), 401, 'authentication_error', 'invalid_api_key');
  });

  it('when a publishable key is used, then last_used_at is set', async () => {
    const form = await createForm(api);
    const key = await createPublishableKey(api, { environment: 'live' });
    await api.call('get', `/v1/public/forms/${form.id}`, key.value);
    await api.flushLastUsed();
    const read = await api.call('get', `/v1/publishable_keys/${key.id}`);
    expect(read.body.last_used_at).not.toBeNull();
  });
});
