/**
 * The caller and its workspace: GET /v1/me, the audit log, "Reset test data", and the deprecation
 * headers an operator can switch on.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authorizeOAuthClient } from '../../src/domain/oauth/authorize.js';
import { registerOAuthClient } from '../../src/domain/oauth/clients.js';
import { newId } from '../../src/ids.js';
import { formBody } from '../support/factories.js';
import { expectEnvelopeHeaders, expectProblem, generousLimits, useWatchedApi, watchedApi } from '../support/http-checks.js';

const api = useWatchedApi({ rateLimits: generousLimits });

describe('GET /v1/me', () => {
  it('when called with the live admin key, then it describes the key and its workspace', async () => {
    const res = await api.call('get', '/v1/me');
    expect(res.status).toBe(200);
    expectEnvelopeHeaders(res);
    expect(res.body).toEqual({
      object: 'me',
      id: expect.stringMatching(/^key_/),
      auth_type: 'api_key',
      name: 'First live admin key',
      environment: 'live',
      scope: 'admin',
      attachment: { type: 'workspace' },
      expires_at: null,
      member: null,
      workspace: { id: api.workspace.workspace_id, object: 'workspace', name: 'Acme', plan: 'business' },
      request_id: res.headers['x-request-id'],
    });
  });

  it('when called with an attached, expiring test key, then it says so', async () => {
    const form = await api.call('post', '/v1/forms').send(formBody('Me form'));
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const key = await api.createKey({
      environment: 'test',
      scope: 'read',
      name: 'Widget',
      expires_at: expiresAt,
      attachment: { type: 'form', form_id: form.body.id },
    });
    const res = await api.call('get', '/v1/me', key.secret);
    expect(res.body).toMatchObject({
      id: key.id,
      name: 'Widget',
      environment: 'test',
      scope: 'read',
      attachment: { type: 'form', form_id: form.body.id },
      expires_at: expiresAt,
    });
  });
});

describe('GET /v1/me with an OAuth token', () => {
  const enterprise = useWatchedApi({ rateLimits: generousLimits, plan: 'enterprise' });
  const redirectUri = 'https://partner.example/callback';

  /** A consent (with the member who gave it, or none as the operator's command records it) and its code's exchange. */
  async function accessToken(memberId?: string): Promise<string> {
    const { client } = await registerOAuthClient(enterprise.services, { name: 'Partner app', redirectUris: [redirectUri] });
    const verifier = randomBytes(32).toString('base64url');
    const { code } = await authorizeOAuthClient(enterprise.services, {
      workspaceId: enterprise.workspace.workspace_id,
      clientId: client.id,
      scope: 'read',
      redirectUri,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      codeChallengeMethod: 'S256',
      memberId,
    });
    const res = await enterprise
      .call('post', '/v1/oauth/token', null)
      .type('form')
      .send({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.id, code_verifier: verifier });
    expect(res.status).toBe(200);
    return res.body.access_token;
  }

  it('when the grant records the member who consented, then me names that member', async () => {
    const member = {
      id: newId('mem'),
      object: 'member' as const,
      email: 'viewer@acme.test',
      name: 'Val Viewer',
      role: 'viewer' as const,
      created_at: new Date().toISOString(),
    };
    await enterprise.store.team.addMember(enterprise.workspace.workspace_id, member);
    const res = await enterprise.call('get', '/v1/me', await accessToken(member.id));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ auth_type: 'oauth_token', name: 'Partner app', scope: 'read' });
    expect(res.body.member).toEqual({ id: member.id, email: 'viewer@acme.test', name: 'Val Viewer' });
  });

  it('when the member has no name yet, then me names them by id and email, with a null name', async () => {
    const member = {
      id: newId('mem'),
      object: 'member' as const,
      email: 'nameless@acme.test',
      name: null,
      role: 'admin' as const,
      created_at: new Date().toISOString(),
    };
    await enterprise.store.team.addMember(enterprise.workspace.workspace_id, member);
    const res = await enterprise.call('get', '/v1/me', await accessToken(member.id));
    expect(res.body.member).toEqual({ id: member.id, email: 'nameless@acme.test', name: null });
  });

  it('when the grant was made without a member (the operator’s command), then member is null', async () => {
    const res = await enterprise.call('get', '/v1/me', await accessToken());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ auth_type: 'oauth_token', member: null });
  });
});

describe('GET /v1/audit_events', () => {
  it("when listed, then the bootstrap keys' creation is there, by the system, newest first", async () => {
    const res = await api.call('get', '/v1/audit_events?type=api_key.created&limit=100');
    expect(res.status).toBe(200);
    const bootstrap = res.body.data.filter((event: { reason: string | null }) => event.reason === 'workspace bootstrap');
    expect(bootstrap).toHaveLength(2);
    expect(bootstrap.map((event: { environment: string }) => event.environment).sort()).toEqual(['live', 'test']);
    expect(bootstrap[0]).toMatchObject({
      object: 'audit_event',
      actor: { type: 'system', id: null, name: null },
      target: { type: 'api_key' },
    });
    const times = res.body.data.map((event: { created_at: string }) => event.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('when filtered by a type that is not an audit event type, then 400', async () => {
    expectProblem(await api.call('get', '/v1/audit_events?type=form.created'), 400, 'validation_error', 'invalid_parameters');
  });

  it('when another workspace acts, then its events are not in this log', async () => {
    const other = await api.otherWorkspace();
    const theirs = await api
      .call('post', '/v1/api_keys', other.live_admin_key)
      .send({ name: 'Theirs', environment: 'live', scope: 'read' });
    const log = await api.call('get', '/v1/audit_events?limit=100');
    expect(log.body.data.map((event: { target: { id: string } }) => event.target.id)).not.toContain(theirs.body.id);
  });
});

describe('DELETE /v1/test_data', () => {
  it('when test data is reset, then test forms and folders go, live ones stay, and the counts are reported', async () => {
    const testKey = api.workspace.test_admin_key;
    const liveFolder = (await api.call('post', '/v1/folders').send({ name: 'Live folder' })).body;
    const liveForm = (await api.call('post', '/v1/forms').send(formBody('Live stays', { folder_id: liveFolder.id }))).body;
    const testFolder = (await api.call('post', '/v1/folders', testKey).send({ name: 'Test folder' })).body;
    const testForms = [
      (await api.call('post', '/v1/forms', testKey).send(formBody('Test goes', { folder_id: testFolder.id }))).body,
      (await api.call('post', '/v1/forms', testKey).send(formBody('Test goes too'))).body,
    ];
    await api.call('patch', `/v1/forms/${testForms[1].id}`, testKey).send({ name: 'Test goes, v2' });

    const res = await api.call('delete', '/v1/test_data', testKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'test_data_reset',
      deleted: { forms: 2, folders: 1, submissions: 0, integrations: 0, integration_logs: 0 },
      request_id: res.headers['x-request-id'],
    });

    for (const form of testForms)
      expectProblem(await api.call('get', `/v1/forms/${form.id}`, testKey), 404, 'not_found', 'resource_not_found');
    expectProblem(await api.call('get', `/v1/folders/${testFolder.id}`, testKey), 404, 'not_found', 'resource_not_found');
    expect((await api.call('get', `/v1/forms/${liveForm.id}`)).status).toBe(200);
    expect((await api.call('get', `/v1/folders/${liveFolder.id}`)).status).toBe(200);
    const left = (await api.call('get', '/v1/forms?limit=100', testKey)).body.data;
    expect(left.every((form: { test: boolean }) => !form.test)).toBe(true);
    expect(await api.rows('SELECT COUNT(*) AS n FROM form_versions WHERE form_id IN (?, ?)', testForms[0].id, testForms[1].id)).toEqual([
      { n: 0 },
    ]);

    const audit = await api.call('get', '/v1/audit_events?type=test_data.reset');
    expect(audit.body.data).toHaveLength(1);
  });

  it('when the live admin key resets test data, then it may, and live data is untouched', async () => {
    const live = (await api.call('post', '/v1/forms').send(formBody('Live survives live reset'))).body;
    await api.call('post', '/v1/forms', api.workspace.test_admin_key).send(formBody('Sandbox dies'));
    const res = await api.call('delete', '/v1/test_data');
    expect(res.status).toBe(200);
    expect(res.body.deleted.forms).toBe(1);
    expect((await api.call('get', `/v1/forms/${live.id}`)).status).toBe(200);
  });

  it("when another workspace resets its test data, then this workspace's test data stays", async () => {
    const mine = (await api.call('post', '/v1/forms', api.workspace.test_admin_key).send(formBody('My sandbox form'))).body;
    const other = await api.otherWorkspace();
    expect((await api.call('delete', '/v1/test_data', other.test_admin_key)).body.deleted.forms).toBe(0);
    expect((await api.call('get', `/v1/forms/${mine.id}`, api.workspace.test_admin_key)).status).toBe(200);
  });
});

describe('deprecation headers', () => {
  it('when the version is deprecated by configuration, then every response says so (RFC 9745, RFC 8594, successor link)', async () => {
    const deprecated = await watchedApi({
      deprecation: { at: '2027-01-01T00:00:00Z', sunset: '2029-01-01T00:00:00Z', successor: 'https://api.form-funnel.example/v2' },
    });
    try {
      for (const res of [
        await deprecated.call('get', '/v1/me'),
        await deprecated.call('get', '/v1/forms', null),
        await deprecated.call('get', '/v1/forms?limit=0'),
      ]) {
        expect(res.headers.deprecation).toBe('@1798761600');
        expect(res.headers.sunset).toBe('Mon, 01 Jan 2029 00:00:00 GMT');
        expect(res.headers.link).toBe('<https://api.form-funnel.example/v2>; rel="successor-version"');
      }
      deprecated.expectNoInternals();
    } finally {
      await deprecated.close();
    }
  });

  it('when the version is current, then no deprecation headers are sent', async () => {
    const res = await api.call('get', '/v1/me');
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
    expect(res.headers.link).toBeUndefined();
  });
});
