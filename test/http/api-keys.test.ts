/**
 * API keys: the secret is shown once and stored only as a hash; listing, reading and revoking; what a
 * key records about its use; and the audit trail.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formBody } from '../support/factories.js';
import { absentId, expectEnvelopeHeaders, expectProblem, generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';

let clock = new Date('2031-03-01T12:00:00.000Z');
const api = useWatchedApi({ rateLimits: generousLimits, now: () => clock });

const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};

describe('POST /v1/api_keys', () => {
  it('when a key is created, then 201 with its secret, once, in the documented format', async () => {
    const res = await api.call('post', '/v1/api_keys').send({ name: 'CRM sync', environment: 'live', scope: 'read_write' });
    expect(res.status).toBe(201);
    expectEnvelopeHeaders(res);
    expect(res.headers.location).toBe(`/v1/api_keys/${res.body.id}`);
    expect(res.body).toMatchObject({
      object: 'api_key',
      name: 'CRM sync',
      environment: 'live',
      scope: 'read_write',
      attachment: { type: 'workspace' },
      status: 'active',
      expires_at: null,
      ip_allowlist: [],
      last_used_at: null,
      revoked_at: null,
      revocation_reason: null,
      revocation_cause: null,
    });
    expect(res.body.id).toMatch(/^key_[0-9A-Za-z]{24}$/);
    expect(res.body.secret).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
    expect(res.body.secret_hint).toBe(`svc_live_…${res.body.secret.slice(-4)}`);
    expect((await api.call('get', '/v1/me', res.body.secret)).body.id).toBe(res.body.id);
  });

  it('when a test key is created, then its secret starts with svc_test_', async () => {
    const key = await api.createKey({ environment: 'test', scope: 'read' });
    expect(key.secret).toMatch(/^svc_test_[0-9A-Za-z]{32,}$/);
    expect(key.secret_hint).toBe(`svc_test_…${key.secret.slice(-4)}`);
  });

  it('when a key is read or listed afterwards, then the secret never appears again', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const got = await api.call('get', `/v1/api_keys/${key.id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    expect(got.body.secret_hint).toBe(key.secret_hint);
    const list = await api.call('get', '/v1/api_keys?limit=100');
    const listed = list.body.data.find((item: { id: string }) => item.id === key.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('secret');
    const audit = await api.call('get', '/v1/audit_events?limit=100');
    const me = await api.call('get', '/v1/me', key.secret);
    for (const res of [got, list, audit, me]) expect(JSON.stringify(res.body)).not.toContain(key.secret);
  });

  it('when a key is stored, then only the SHA-256 of its secret is kept, never the secret', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const [row] = (await api.rows('SELECT * FROM api_keys WHERE id = ?', key.id)) as Array<
      Record<string, unknown> & { secret_hash: Buffer }
    >;
    expect(Buffer.isBuffer(row!.secret_hash)).toBe(true);
    expect(row!.secret_hash.equals(createHash('sha256').update(key.secret).digest())).toBe(true);
    for (const value of Object.values(row!)) {
      const text = Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
      expect(text).not.toContain(key.secret);
      expect(text).not.toContain(key.secret.slice(9, 30));
    }
  });

  it('when a test-mode admin key creates a live key, then 403 live_resource', async () => {
    const res = await api
      .call('post', '/v1/api_keys', api.workspace.test_admin_key)
      .send({ name: 'Escalate', environment: 'live', scope: 'admin' });
    expectProblem(res, 403, 'permission_error', 'live_resource');
  });

  it('when expires_at is in the past, then 422 invalid_value in_the_past', async () => {
    const res = await api
      .call('post', '/v1/api_keys')
      .send({ name: 'Old', environment: 'live', scope: 'read', expires_at: new Date(clock.getTime() - 1000).toISOString() });
    expectProblem(res, 422, 'validation_error', 'invalid_value');
    expect(issuesOf(res)).toEqual(['body /expires_at in_the_past']);
  });

  it('when the attached form does not exist, then 422 invalid_value not_found', async () => {
    const res = await api
      .call('post', '/v1/api_keys')
      .send({ name: 'Nowhere', environment: 'live', scope: 'read', attachment: { type: 'form', form_id: absentId('form') } });
    expectProblem(res, 422, 'validation_error', 'invalid_value');
    expect(issuesOf(res)).toEqual(['body /attachment/form_id not_found']);
  });

  it('when a live key is attached to a test-mode form, then 422 (live keys cannot reach the sandbox)', async () => {
    const sandbox = await api.call('post', '/v1/forms', api.workspace.test_admin_key).send(formBody('Sandbox for keys'));
    const res = await api
      .call('post', '/v1/api_keys')
      .send({ name: 'Cross', environment: 'live', scope: 'read', attachment: { type: 'form', form_id: sandbox.body.id } });
    expectProblem(res, 422, 'validation_error', 'invalid_value');
    expect(issuesOf(res)).toEqual(['body /attachment/form_id not_found']);
  });

  it('when a live key is attached to a test-mode folder, then 422 and no key is made; a test key may be attached to it', async () => {
    const sandbox = await api.call('post', '/v1/folders', api.workspace.test_admin_key).send({ name: 'Sandbox folder for keys' });
    expect(sandbox.body.test).toBe(true);
    const attachment = { type: 'folder' as const, folder_id: sandbox.body.id as string };
    const res = await api.call('post', '/v1/api_keys').send({ name: 'Cross folder', environment: 'live', scope: 'read', attachment });
    expectProblem(res, 422, 'validation_error', 'invalid_value');
    expect(issuesOf(res)).toEqual(['body /attachment/folder_id not_found']);
    const names = (await api.call('get', '/v1/api_keys?limit=100')).body.data.map((key: { name: string }) => key.name);
    expect(names).not.toContain('Cross folder');

    const testKey = await api.createKey({ name: 'Sandbox folder key', environment: 'test', scope: 'read', attachment });
    expect(testKey.attachment).toEqual(attachment);
  });

  it('when scope or environment is not one of the allowed words, then 400', async () => {
    const res = await api.call('post', '/v1/api_keys').send({ name: 'Bad', environment: 'prod', scope: 'root' });
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res).sort()).toEqual(['body /environment enum', 'body /scope enum']);
  });

  it('when a key is created, then api_key.created is audited with the acting key', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read', name: 'Audited' });
    const audit = await api.call('get', '/v1/audit_events?type=api_key.created&limit=100');
    const event = audit.body.data.find((item: { target: { id: string } }) => item.target.id === key.id);
    expect(event).toMatchObject({
      object: 'audit_event',
      type: 'api_key.created',
      environment: 'live',
      actor: { type: 'api_key' },
      target: { type: 'api_key', id: key.id, name: 'Audited' },
    });
  });
});

describe('DELETE /v1/api_keys/{id}', () => {
  it('when a key is revoked with a reason, then it is revoked with that reason, audited, and refused from then on', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const res = await api.call('delete', `/v1/api_keys/${key.id}`).send({ reason: 'Leaked in a log' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: key.id,
      status: 'revoked',
      revocation_reason: 'Leaked in a log',
      revocation_cause: 'user',
      revoked_at: clock.toISOString(),
    });
    expect(res.body).not.toHaveProperty('secret');
    expectProblem(await api.call('get', '/v1/me', key.secret), 401, 'authentication_error', 'invalid_api_key');

    const audit = await api.call('get', '/v1/audit_events?type=api_key.revoked');
    const event = audit.body.data.find((item: { target: { id: string } }) => item.target.id === key.id);
    expect(event).toMatchObject({ type: 'api_key.revoked', reason: 'Leaked in a log' });
  });

  it('when a key is revoked without a body, then it is revoked with no reason', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const res = await api.call('delete', `/v1/api_keys/${key.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'revoked', revocation_reason: null, revocation_cause: 'user' });
  });

  it('when a revoked key is revoked again, then nothing changes (revocation cannot be undone or rewritten)', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const first = await api.call('delete', `/v1/api_keys/${key.id}`).send({ reason: 'first' });
    advance(1000);
    const second = await api.call('delete', `/v1/api_keys/${key.id}`).send({ reason: 'second' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'revoked', revocation_reason: 'first', revoked_at: first.body.revoked_at });
  });

  it('when a test key revokes a live key, then 403 live_resource and the key still works', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    expectProblem(
      await api.call('delete', `/v1/api_keys/${key.id}`, api.workspace.test_admin_key),
      403,
      'permission_error',
      'live_resource',
    );
    expect((await api.call('get', '/v1/me', key.secret)).status).toBe(200);
  });

  it('when a key of another workspace is named, then 404', async () => {
    const other = await api.otherWorkspace();
    const theirs = await api
      .call('post', '/v1/api_keys', other.live_admin_key)
      .send({ name: 'Theirs', environment: 'live', scope: 'read' });
    expectProblem(await api.call('get', `/v1/api_keys/${theirs.body.id}`), 404, 'not_found', 'resource_not_found');
    expectProblem(await api.call('delete', `/v1/api_keys/${theirs.body.id}`), 404, 'not_found', 'resource_not_found');
    expect((await api.call('get', '/v1/me', theirs.body.secret)).status).toBe(200);
  });
});

describe('GET /v1/api_keys', () => {
  it('when filtered by status, then only keys with that status come back', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    await api.call('delete', `/v1/api_keys/${key.id}`);
    const revoked = await api.call('get', '/v1/api_keys?status=revoked&limit=100');
    expect(revoked.body.data.every((item: { status: string }) => item.status === 'revoked')).toBe(true);
    expect(revoked.body.data.map((item: { id: string }) => item.id)).toContain(key.id);
    const active = await api.call('get', '/v1/api_keys?status=active&limit=100');
    expect(active.body.data.map((item: { id: string }) => item.id)).not.toContain(key.id);
  });
});

describe('last_used_at', () => {
  it('when a key is used, then last_used_at records when; later uses within a minute are written by the next flush, never lost', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const read = async () => (await api.call('get', `/v1/api_keys/${key.id}`)).body.last_used_at as string | null;
    expect(await read()).toBeNull();

    expect((await api.call('get', '/v1/me', key.secret)).status).toBe(200);
    const firstUse = clock.toISOString();
    // The use that starts an interval is written without holding up its request; flush waits for that write.
    await api.flushLastUsed();
    expect(await read()).toBe(firstUse);

    advance(10_000);
    expect((await api.call('get', '/v1/me', key.secret)).status).toBe(200);
    const secondUse = clock.toISOString();
    await api.flushLastUsed();
    expect(await read()).toBe(secondUse);

    advance(120_000);
    expect((await api.call('get', '/v1/me', key.secret)).status).toBe(200);
    await api.flushLastUsed();
    expect(await read()).toBe(clock.toISOString());
  });

  it('when a request is refused (revoked key), then last_used_at does not move', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    await api.call('get', '/v1/me', key.secret);
    // The accepted use is written first (writes are coalesced and may still be on their way).
    await api.flushLastUsed();
    const before = (await api.call('get', `/v1/api_keys/${key.id}`)).body.last_used_at;
    expect(before).not.toBeNull();
    await api.call('delete', `/v1/api_keys/${key.id}`);
    advance(120_000);
    await api.call('get', '/v1/me', key.secret);
    await api.flushLastUsed();
    expect((await api.call('get', `/v1/api_keys/${key.id}`)).body.last_used_at).toBe(before);
  });
});
