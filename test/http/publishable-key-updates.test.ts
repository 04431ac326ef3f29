/**
 * PATCH /v1/publishable_keys/{id}: an admin renames a key or replaces its allowed origins, checked as on creation,
 * with If-Match against a concurrent change; a revoked key stays as it is. The public path holds the key's pages to
 * the new origins from the next request on, its browsers' preflights included.
 */
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createForm } from '../support/factories.js';
import { absentId, expectProblem, generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey, type PublishableKey } from '../support/publishable-keys.js';

const api = useWatchedApi({ rateLimits: generousLimits });

const at = (key: { id: string }) => `/v1/publishable_keys/${key.id}`;
const update = (key: { id: string }, body: unknown, adminKey?: string) => api.call('patch', at(key), adminKey).send(body as object);

/** The key as GET answers it, with its ETag. */
async function read(key: { id: string }): Promise<{ key: PublishableKey; tag: string }> {
  const res = await api.call('get', at(key));
  expect(res.status).toBe(200);
  const { request_id: _requestId, ...body } = res.body;
  return { key: body as PublishableKey, tag: res.headers.etag! };
}

const updatesOf = async (key: { id: string }) =>
  (await api.call('get', '/v1/audit_events?type=publishable_key.updated&limit=100')).body.data.filter(
    (event: { target: { id: string } }) => event.target.id === key.id,
  );

const preflight = (origin: string) =>
  request(api.baseUrl)
    .options('/v1/public/submissions')
    .trustLocalhost()
    .ca(api.certificate)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST');

describe('changing a publishable key', () => {
  it('when an admin renames a key, then 200 with the new name, the same value and origins, a new ETag, and an audit event', async () => {
    const key = await createPublishableKey(api, { environment: 'live', name: 'Website' });
    const before = await read(key);
    const res = await update(key, { name: 'Website (2027 redesign)' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { request_id: _requestId, ...body } = res.body;
    expect(body).toEqual({ ...before.key, name: 'Website (2027 redesign)' });
    expect(res.headers.etag).toMatch(/^"[0-9A-Za-z_-]{22}"$/);
    expect(res.headers.etag).not.toBe(before.tag);
    expect(await read(key)).toEqual({ key: body, tag: res.headers.etag });
    expect(await updatesOf(key)).toEqual([
      expect.objectContaining({
        type: 'publishable_key.updated',
        reason: 'changed: name',
        environment: 'live',
        target: { type: 'publishable_key', id: key.id, name: 'Website (2027 redesign)' },
      }),
    ]);
  });

  it('when the origins are replaced, then the list is the one sent, whole, and the audit event names them', async () => {
    const key = await createPublishableKey(api, { environment: 'live', allowed_origins: ['https://a.example', 'https://b.example'] });
    const origins = ['https://c.example:8443', 'https://a.example'];
    const res = await update(key, { allowed_origins: origins });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ name: key.name, value: key.value, allowed_origins: origins, status: 'active' });
    expect((await read(key)).key.allowed_origins).toEqual(origins);
    expect((await updatesOf(key)).map((event: { reason: string }) => event.reason)).toEqual(['changed: allowed_origins']);
  });

  it('when both fields are sent, then both change; when nothing would change, then the key and its ETag as they are, unaudited', async () => {
    const key = await createPublishableKey(api, { environment: 'test', allowed_origins: ['http://localhost:5173'] });
    const both = await update(key, { name: 'Staging', allowed_origins: ['http://127.0.0.1:8080', 'https://staging.acme.example'] });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ name: 'Staging', allowed_origins: ['http://127.0.0.1:8080', 'https://staging.acme.example'] });
    const same = await update(key, { name: 'Staging', allowed_origins: ['http://127.0.0.1:8080', 'https://staging.acme.example'] });
    expect(same.status).toBe(200);
    expect(same.headers.etag).toBe(both.headers.etag);
    expect((await updatesOf(key)).map((event: { reason: string }) => event.reason)).toEqual(['changed: name, allowed_origins']);
  });

  it('when an origin is refused as on creation, then 422 invalid_value points at each refused item and nothing changes', async () => {
    const key = await createPublishableKey(api, { environment: 'live' });
    const before = await read(key);
    const res = await update(key, {
      name: 'Not applied',
      allowed_origins: ['https://ok.example', 'http://localhost:5173', 'https://acme.example:443'],
    });
    expectProblem(res, 422, 'validation_error', 'invalid_value');
    expect(issuesOf(res)).toEqual(['body /allowed_origins/1 insecure_origin', 'body /allowed_origins/2 invalid_origin']);
    expect(await read(key)).toEqual(before);
    expect(await updatesOf(key)).toEqual([]);
  });

  it('when an origin breaks the schema (a wildcard, a path), then 400 invalid_parameters points at that item', async () => {
    const key = await createPublishableKey(api, { environment: 'live' });
    for (const [origins, index] of [
      [['https://ok.example', 'https://*.acme.example'], 1],
      [['https://acme.example/forms'], 0],
    ] as const) {
      const res = await update(key, { allowed_origins: origins });
      expectProblem(res, 400, 'validation_error', 'invalid_parameters');
      expect(issuesOf(res)).toContain(`body /allowed_origins/${index} pattern`);
    }
    for (const allowed_origins of [
      [],
      Array.from({ length: 21 }, (_, n) => `https://site${n}.example`),
      ['https://a.example', 'https://a.example'],
    ]) {
      expectProblem(await update(key, { allowed_origins }), 400, 'validation_error', 'invalid_parameters');
    }
    expect((await read(key)).key.allowed_origins).toEqual(key.allowed_origins);
  });

  it('when the body is empty, names a field that cannot change or an unknown one, then 400 invalid_parameters', async () => {
    const key = await createPublishableKey(api, { environment: 'live' });
    for (const body of [
      {},
      { environment: 'test' },
      { attachment: { type: 'workspace' } },
      { value: `svc_pub_live_${'B'.repeat(24)}` },
      { name: 'Fine', colour: 'blue' },
      { name: '' },
      { name: null },
      { allowed_origins: null },
    ]) {
      const res = await update(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    }
    expect((await read(key)).key).toMatchObject({ name: key.name, environment: 'live', value: key.value });
  });

  it('when the key is not an admin key of the workspace, then 403: a read or read_write key, a test key on a live key', async () => {
    const key = await createPublishableKey(api, { environment: 'live' });
    for (const scope of ['read', 'read_write'] as const) {
      const { secret } = await api.createKey({ environment: 'live', scope });
      expectProblem(await update(key, { name: 'Taken over' }, secret), 403, 'permission_error', 'insufficient_scope');
    }
    expectProblem(await update(key, { name: 'Taken over' }, api.workspace.test_admin_key), 403, 'permission_error', 'live_resource');
    const test = await createPublishableKey(api, { environment: 'test', allowed_origins: ['http://localhost:3000'] });
    expect((await update(test, { name: 'Test site' }, api.workspace.test_admin_key)).status).toBe(200);
    expect((await read(key)).key.name).toBe(key.name);
  });

  it('when the key is revoked, then 409 key_revoked and it stays as it was', async () => {
    const key = await createPublishableKey(api, { environment: 'live' });
    expect((await api.call('delete', at(key))).status).toBe(200);
    const revoked = await read(key);
    const res = await update(key, { allowed_origins: ['https://elsewhere.example'] });
    expectProblem(res, 409, 'conflict_error', 'key_revoked');
    expect(res.body.message).toContain(key.id);
    // Even with the revoked state's own ETag: the state is final, not stale.
    const tagged = await api.call('patch', at(key)).set('If-Match', revoked.tag).send({ name: 'Back' });
    expectProblem(tagged, 409, 'conflict_error', 'key_revoked');
    expect(await read(key)).toEqual(revoked);
  });

  it('when the key is unknown, or another workspace’s, then 404 resource_not_found', async () => {
    expectProblem(await update({ id: absentId('pk') }, { name: 'x' }), 404, 'not_found', 'resource_not_found');
    const other = await api.otherWorkspace();
    const theirs = await api
      .call('post', '/v1/publishable_keys', other.live_admin_key)
      .send({ name: 'Theirs', environment: 'live', allowed_origins: ['https://theirs.example'] });
    expect(theirs.status).toBe(201);
    expectProblem(await update(theirs.body, { name: 'Mine now' }), 404, 'not_found', 'resource_not_found');
  });
});

describe('If-Match on a publishable key', () => {
  it('when If-Match names a stale or unknown tag, then 412 precondition_failed and nothing changes; the current tag, then 200', async () => {
    const key = await createPublishableKey(api, { environment: 'live' });
    const first = await read(key);
    const renamed = await api.call('patch', at(key)).set('If-Match', first.tag).send({ name: 'First change' });
    expect(renamed.status).toBe(200);

    // A second admin still holds the first read: their change would overwrite the first one, so it is refused.
    const stale = await api
      .call('patch', at(key))
      .set('If-Match', first.tag)
      .send({ allowed_origins: ['https://lost.example'] });
    expectProblem(stale, 412, 'conflict_error', 'precondition_failed');
    const weak = await api.call('patch', at(key)).set('If-Match', `W/${renamed.headers.etag}`).send({ name: 'Weak' });
    expectProblem(weak, 412, 'conflict_error', 'precondition_failed');
    expect(await read(key)).toEqual({ key: { ...first.key, name: 'First change' }, tag: renamed.headers.etag });

    const current = await api
      .call('patch', at(key))
      .set('If-Match', `"AAAAAAAAAAAAAAAAAAAAAA", ${renamed.headers.etag}`)
      .send({ allowed_origins: ['https://kept.example'] });
    expect(current.status).toBe(200);
    expect(current.body.allowed_origins).toEqual(['https://kept.example']);
    expect((await api.call('patch', at(key)).set('If-Match', '*').send({ name: 'Any state' })).status).toBe(200);
  });

  it('when the key was used since the read, then its tag moved with last_used_at and the stale If-Match gets 412', async () => {
    const form = await createForm(api);
    const key = await createPublishableKey(api, { environment: 'live' });
    const before = await read(key);
    expect((await api.call('get', `/v1/public/forms/${form.id}`, key.value)).status).toBe(200);
    await api.flushLastUsed();
    const after = await read(key);
    expect(after.key.last_used_at).not.toBeNull();
    expect(after.tag).not.toBe(before.tag);
    expectProblem(
      await api.call('patch', at(key)).set('If-Match', before.tag).send({ name: 'x' }),
      412,
      'conflict_error',
      'precondition_failed',
    );
    expect((await api.call('patch', at(key)).set('If-Match', after.tag).send({ name: 'x' })).status).toBe(200);
  });

  it('when a revocation sends a stale If-Match, then 412 and the key stays active; the current tag revokes it', async () => {
    const key = await createPublishableKey(api, { environment: 'live' });
    const first = await read(key);
    const renamed = await update(key, { name: 'Renamed' });
    expectProblem(await api.call('delete', at(key)).set('If-Match', first.tag), 412, 'conflict_error', 'precondition_failed');
    expect((await read(key)).key.status).toBe('active');
    const revoked = await api.call('delete', at(key)).set('If-Match', renamed.headers.etag!);
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
  });
});

describe('the public path after a change of origins', () => {
  it('when an origin is added, then its very next preflight and request are granted; a removed origin is refused at once', async () => {
    const form = await createForm(api);
    // Origins of this test alone: a preflight is granted for an origin that any active key allows.
    const [kept, added, removed] = ['https://kept.origins.example', 'https://added.origins.example', 'https://removed.origins.example'];
    const key = await createPublishableKey(api, { environment: 'live', allowed_origins: [kept, removed] });
    const get = (origin: string) => api.call('get', `/v1/public/forms/${form.id}`, key.value).set('Origin', origin);

    // Refused while the key does not allow it: the refusal is what the service knew then, and must not outlive the change.
    expect((await preflight(added)).headers['access-control-allow-origin']).toBeUndefined();
    expectProblem(await get(added), 403, 'permission_error', 'origin_not_allowed');
    expect((await get(removed)).status).toBe(200);
    expect((await preflight(removed)).headers['access-control-allow-origin']).toBe(removed);

    expect((await update(key, { allowed_origins: [kept, added] })).status).toBe(200);

    const granted = await preflight(added);
    expect(granted.status).toBe(204);
    expect(granted.headers).toMatchObject({ 'access-control-allow-origin': added, 'access-control-allow-methods': 'GET, POST, PATCH' });
    const served = await get(added);
    expect(served.status).toBe(200);
    expect(served.headers['access-control-allow-origin']).toBe(added);
    expect((await get(kept)).headers['access-control-allow-origin']).toBe(kept);

    expect((await preflight(removed)).headers['access-control-allow-origin']).toBeUndefined();
    const refused = await get(removed);
    expectProblem(refused, 403, 'permission_error', 'origin_not_allowed');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('when a key is renamed, then its pages are served as before, with the same value', async () => {
    const form = await createForm(api);
    const key = await createPublishableKey(api, { environment: 'live' });
    expect((await update(key, { name: 'Renamed site' })).status).toBe(200);
    const res = await api.call('get', `/v1/public/forms/${form.id}`, key.value).set('Origin', 'https://www.acme.example');
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://www.acme.example');
  });
});
