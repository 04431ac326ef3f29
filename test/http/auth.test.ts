/**
 * Authentication and access: every way a request can fail to be let in (401), and every reason a valid key
 * is still refused (403), each checked on the wire.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../src/domain/keys/authenticate.js';
import { sweepExpiredKeys } from '../../src/domain/keys/service.js';
import { loadContract } from '../../src/http/contract-document.js';
import { createForm, formBody } from '../support/factories.js';
import { expectEnvelopeHeaders, expectProblem, generousLimits, useWatchedApi, watchedApi } from '../support/http-checks.js';

let clock = new Date('2030-01-01T00:00:00.000Z');
const api = useWatchedApi({ now: () => clock, rateLimits: generousLimits });

/** One HTTP/1.1 request written byte for byte, for headers no client library will send. */
function rawRequest(head: string): Promise<string> {
  const { port } = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: Number(port), ca: api.certificate, servername: 'localhost' }, () => {
      socket.write(`GET /v1/me HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${head}\r\n`);
    });
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

describe('Authorization header', () => {
  it('when the exact `Bearer <key>` form is sent, then the request is let in', async () => {
    const res = await api.call('get', '/v1/me');
    expect(res.status).toBe(200);
  });

  it.each([
    ['no Authorization header', null],
    ['the scheme in lowercase (`bearer`)', (key: string) => `bearer ${key}`],
    ['the scheme in capitals (`BEARER`)', (key: string) => `BEARER ${key}`],
    ['two spaces after the scheme', (key: string) => `Bearer  ${key}`],
    ['a tab instead of the space', (key: string) => `Bearer\t${key}`],
    ['a trailing non-breaking space (whitespace HTTP does not strip)', (key: string) => `Bearer ${key}\u00a0`],
    ['the key without a scheme', (key: string) => key],
    ['the Basic scheme', (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`],
    ['the scheme alone', () => 'Bearer'],
    ['two keys', (key: string) => `Bearer ${key} ${key}`],
  ] as const)('when the request has %s, then 401 invalid_api_key', async (_name, header) => {
    const req = api.call('get', '/v1/me', null);
    const res = await (header === null ? req : req.set('Authorization', header(api.workspace.live_admin_key)));
    expectProblem(res, 401, 'authentication_error', 'invalid_api_key');
    expect(res.body.details).toBeUndefined();
  });

  it('when the key is followed by a trailing space or newline, then the key is refused (checked where the header value is read)', async () => {
    // HTTP/1.1 strips trailing spaces and tabs from field values before any application sees them
    // (RFC 9110 section 5.5; Node's parser does it), so the rule is checked on the value the server reads.
    const key = api.workspace.live_admin_key;
    const lastUsed = { record: () => undefined };
    for (const header of [`Bearer ${key} `, `Bearer ${key}\n`, `Bearer ${key}\r\n`, `Bearer ${key}\t`]) {
      await expect(authenticate(api.services, header, '127.0.0.1', lastUsed)).rejects.toMatchObject({
        status: 401,
        code: 'invalid_api_key',
      });
    }
    await expect(authenticate(api.services, `Bearer ${key}`, '127.0.0.1', lastUsed)).resolves.toMatchObject({ scope: 'admin' });
  });

  it('when a raw request ends the Authorization value with a newline, then it is refused before reaching any operation', async () => {
    const key = api.workspace.live_admin_key;
    const accepted = await rawRequest(`Authorization: Bearer ${key}\r\n`);
    expect(accepted.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    for (const head of [
      `Authorization: Bearer ${key}\n\r\n`,
      `Authorization: Bearer ${key}\r\r\n`,
      `Authorization: Bearer ${key}\r\n \r\n`,
    ]) {
      const refused = await rawRequest(head);
      expect(refused.split('\r\n')[0]).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(refused).not.toContain('"object":"me"');
    }
  });

  it('when the key has the right shape but does not exist, then 401 invalid_api_key', async () => {
    const res = await api.call('get', '/v1/me', `svc_live_${'Q'.repeat(40)}`);
    expectProblem(res, 401, 'authentication_error', 'invalid_api_key');
  });

  it('when the key is malformed (too short, other prefix), then 401 invalid_api_key', async () => {
    for (const key of ['svc_live_short', `sk_live_${'Q'.repeat(40)}`, `svc_prod_${'Q'.repeat(40)}`]) {
      expectProblem(await api.call('get', '/v1/me', key), 401, 'authentication_error', 'invalid_api_key');
    }
  });
});

describe('revoked and expired keys', () => {
  it('when a key is revoked, then the very next request with it gets 401 invalid_api_key', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    expect((await api.call('get', '/v1/forms', key.secret)).status).toBe(200);
    const revoked = await api.call('delete', `/v1/api_keys/${key.id}`);
    expect(revoked.status).toBe(200);
    const res = await api.call('get', '/v1/forms', key.secret);
    expectProblem(res, 401, 'authentication_error', 'invalid_api_key');
    expect(res.body.message).toBe('This API key has been revoked; create a new key.');
  });

  it('when a key is unknown or malformed, then the message is the generic one and names no key state', async () => {
    const unknown = await api.call('get', '/v1/me', `svc_live_${'R'.repeat(40)}`);
    const malformed = await api.call('get', '/v1/me', 'svc_live_short');
    for (const res of [unknown, malformed]) {
      expectProblem(res, 401, 'authentication_error', 'invalid_api_key');
      expect(res.body.message).toBe('Send a valid API key as `Authorization: Bearer <key>`.');
    }
  });

  it('when an expired key is used, then 401, the key is now revoked with cause expired, and api_key.expired is audited once', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read', expires_at: new Date(clock.getTime() + 3600_000).toISOString() });
    expect((await api.call('get', '/v1/me', key.secret)).status).toBe(200);
    expect((await api.call('get', `/v1/api_keys/${key.id}`)).body.status).toBe('active');

    clock = new Date(clock.getTime() + 2 * 3600_000);
    // The first use after expiry revokes the key; both that use and the next say it expired, not that it was revoked.
    for (let use = 0; use < 2; use++) {
      const res = await api.call('get', '/v1/me', key.secret);
      expectProblem(res, 401, 'authentication_error', 'invalid_api_key');
      expect(res.body.message).toBe('This API key has expired; create a new key.');
    }

    const stored = await api.call('get', `/v1/api_keys/${key.id}`);
    expect(stored.body).toMatchObject({
      status: 'revoked',
      revocation_cause: 'expired',
      revoked_at: clock.toISOString(),
      revocation_reason: null,
    });
    const audit = await api.call('get', '/v1/audit_events?type=api_key.expired&limit=100');
    expect(audit.status).toBe(200);
    const events = audit.body.data.filter((event: { target: { id: string } }) => event.target.id === key.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'api_key.expired', actor: { type: 'system' }, target: { type: 'api_key', id: key.id } });
  });

  it('when the expiry instant itself is reached, then the key no longer works', async () => {
    const expiresAt = new Date(clock.getTime() + 60_000);
    const key = await api.createKey({ environment: 'live', scope: 'read', expires_at: expiresAt.toISOString() });
    clock = expiresAt;
    expectProblem(await api.call('get', '/v1/me', key.secret), 401, 'authentication_error', 'invalid_api_key');
  });

  it('when the expiry sweep runs, then an expired key that was never used again is revoked too', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read', expires_at: new Date(clock.getTime() + 60_000).toISOString() });
    clock = new Date(clock.getTime() + 120_000);
    expect(await sweepExpiredKeys(api.services)).toBeGreaterThanOrEqual(1);
    const stored = await api.call('get', `/v1/api_keys/${key.id}`);
    expect(stored.body).toMatchObject({ status: 'revoked', revocation_cause: 'expired' });
  });
});

describe('environments (live and test)', () => {
  it('when a live key asks for a test-mode form, then 404 as if it did not exist, and it is not listed', async () => {
    const testForm = await createForm(api, { name: 'Sandbox only' }, api.workspace.test_admin_key);
    expect(testForm.test).toBe(true);
    const res = await api.call('get', `/v1/forms/${testForm.id}`);
    expectProblem(res, 404, 'not_found', 'resource_not_found');
    const list = await api.call('get', '/v1/forms?limit=100');
    expect(list.body.data.map((form: { id: string }) => form.id)).not.toContain(testForm.id);
    expectProblem(await api.call('patch', `/v1/forms/${testForm.id}`).send({ name: 'x' }), 404, 'not_found', 'resource_not_found');
  });

  it('when a test key reads a live form, then it sees it (the sandbox has the same definitions)', async () => {
    const live = await createForm(api, { name: 'Live definition' });
    const res = await api.call('get', `/v1/forms/${live.id}`, api.workspace.test_admin_key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: live.id, test: false });
    const list = await api.call('get', '/v1/forms?limit=100', api.workspace.test_admin_key);
    expect(list.body.data.map((form: { id: string }) => form.id)).toContain(live.id);
  });

  it('when a test key changes or deletes a live form, then 403 live_resource and the form is unchanged', async () => {
    const live = await createForm(api, { name: 'Live, read-only to tests' });
    const testKey = api.workspace.test_admin_key;
    expectProblem(
      await api.call('patch', `/v1/forms/${live.id}`, testKey).send({ name: 'Changed' }),
      403,
      'permission_error',
      'live_resource',
    );
    expectProblem(await api.call('delete', `/v1/forms/${live.id}`, testKey), 403, 'permission_error', 'live_resource');
    const after = await api.call('get', `/v1/forms/${live.id}`);
    expect(after.body).toMatchObject({ name: 'Live, read-only to tests', version: 1 });
  });

  it('when a test key changes a test-mode form, then it may', async () => {
    const sandbox = await createForm(api, { name: 'Sandbox form' }, api.workspace.test_admin_key);
    const res = await api.call('patch', `/v1/forms/${sandbox.id}`, api.workspace.test_admin_key).send({ name: 'Sandbox form 2' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Sandbox form 2', version: 2, test: true });
  });
});

describe('attached keys', () => {
  it('when a form-attached key reaches another form, then 403 form_not_attached; its own form works', async () => {
    const mine = await createForm(api, { name: 'Attached form' });
    const other = await createForm(api, { name: 'Another form' });
    const key = await api.createKey({ environment: 'live', scope: 'read_write', attachment: { type: 'form', form_id: mine.id } });
    expect((await api.call('get', `/v1/forms/${mine.id}`, key.secret)).status).toBe(200);
    expect((await api.call('patch', `/v1/forms/${mine.id}`, key.secret).send({ name: 'Attached form, renamed' })).status).toBe(200);
    expectProblem(await api.call('get', `/v1/forms/${other.id}`, key.secret), 403, 'permission_error', 'form_not_attached');
    expectProblem(
      await api.call('patch', `/v1/forms/${other.id}`, key.secret).send({ name: 'x' }),
      403,
      'permission_error',
      'form_not_attached',
    );
    expectProblem(await api.call('delete', `/v1/forms/${other.id}`, key.secret), 403, 'permission_error', 'form_not_attached');
    expectProblem(await api.call('get', `/v1/forms/${other.id}/versions`, key.secret), 403, 'permission_error', 'form_not_attached');
  });

  it('when a form-attached key lists forms, then it sees only its form', async () => {
    const mine = await createForm(api, { name: 'Only this one' });
    await createForm(api, { name: 'Not this one' });
    const key = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'form', form_id: mine.id } });
    const res = await api.call('get', '/v1/forms?limit=100', key.secret);
    expect(res.status).toBe(200);
    expect(res.body.data.map((form: { id: string }) => form.id)).toEqual([mine.id]);
    expect(res.body.has_more).toBe(false);
  });

  it('when a form-attached key creates a form, then 403 form_not_attached', async () => {
    const mine = await createForm(api, { name: 'Attached, cannot create' });
    const key = await api.createKey({ environment: 'live', scope: 'read_write', attachment: { type: 'form', form_id: mine.id } });
    expectProblem(await api.call('post', '/v1/forms', key.secret).send(formBody('New')), 403, 'permission_error', 'form_not_attached');
  });

  it('when a workspace below the Business plan creates a form-attached key, then 403 plan_required', async () => {
    for (const plan of ['free', 'pro'] as const) {
      const small = await api.otherWorkspace(plan);
      const form = await api.call('post', '/v1/forms', small.live_admin_key).send(formBody(`On ${plan}`));
      expect(form.status).toBe(201);
      const res = await api
        .call('post', '/v1/api_keys', small.live_admin_key)
        .send({ name: 'attached', environment: 'live', scope: 'read', attachment: { type: 'form', form_id: form.body.id } });
      expectProblem(res, 403, 'permission_error', 'plan_required');
      expect(res.body.details).toEqual({ required_plan: 'business' });
      // A workspace-wide key is fine on any plan.
      expect(
        (await api.call('post', '/v1/api_keys', small.live_admin_key).send({ name: 'plain', environment: 'live', scope: 'read' })).status,
      ).toBe(201);
    }
    const enterprise = await api.otherWorkspace('enterprise');
    const form = await api.call('post', '/v1/forms', enterprise.live_admin_key).send(formBody('On enterprise'));
    const res = await api
      .call('post', '/v1/api_keys', enterprise.live_admin_key)
      .send({ name: 'attached', environment: 'live', scope: 'read', attachment: { type: 'form', form_id: form.body.id } });
    expect(res.status).toBe(201);
  });
});

describe('IP allowlists', () => {
  const proxied = useWatchedApi({ trustedProxies: ['127.0.0.1'], rateLimits: generousLimits });

  /** A request that the trusted proxy (our loopback peer) says came from `client`. */
  const from = (key: string, client: string) => proxied.call('get', '/v1/me', key).set('X-Forwarded-For', client);

  it.each([
    ['an IPv4 address', ['203.0.113.7'], '203.0.113.7', '203.0.113.8'],
    ['an IPv4 address (its lower neighbour)', ['203.0.113.7'], '203.0.113.7', '203.0.113.6'],
    ['an IPv4 CIDR range', ['203.0.113.0/24'], '203.0.113.200', '203.0.114.1'],
    ['an IPv6 address', ['2001:db8::1'], '2001:db8:0:0:0:0:0:1', '2001:db8::2'],
    ['an IPv6 address (its lower neighbour)', ['2001:db8::7'], '2001:db8::7', '2001:db8::6'],
    ['an IPv6 CIDR range', ['2001:db8:abcd::/48'], '2001:db8:abcd:12::5', '2001:db8:abce::5'],
    ['an IPv4 range, client seen as IPv4-mapped IPv6', ['198.51.100.0/24'], '::ffff:198.51.100.9', '::ffff:198.51.101.9'],
    ['an IPv4-mapped IPv6 range, client seen as IPv4', ['::ffff:192.0.2.0/120'], '192.0.2.77', '192.0.3.77'],
    ['several entries', ['10.1.2.3', '2001:db8::/32'], '2001:db8:ffff::1', '10.1.2.4'],
  ])(
    'when the allowlist has %s, then an address inside is let in and one outside gets 403 ip_not_allowed',
    async (_name, allowlist, inside, outside) => {
      const key = await proxied.createKey({ environment: 'live', scope: 'read', ip_allowlist: allowlist });
      const allowed = await from(key.secret, inside);
      expect(allowed.status).toBe(200);
      const refused = await from(key.secret, outside);
      expectProblem(refused, 403, 'permission_error', 'ip_not_allowed');
    },
  );

  it('when X-Forwarded-For lists several hops, then the nearest hop that is not a trusted proxy is the client', async () => {
    const key = await proxied.createKey({ environment: 'live', scope: 'read', ip_allowlist: ['203.0.113.7'] });
    // A client can prepend anything; only what our proxy appended counts.
    expect((await from(key.secret, '203.0.113.7, 198.51.100.1')).status).toBe(403);
    expect((await from(key.secret, '198.51.100.1, 203.0.113.7')).status).toBe(200);
    expect((await from(key.secret, '203.0.113.7, 127.0.0.1')).status).toBe(200);
  });

  it('when the peer is not a trusted proxy, then X-Forwarded-For is ignored and the peer address is checked', async () => {
    const outsideKey = await api.createKey({ environment: 'live', scope: 'read', ip_allowlist: ['203.0.113.7'] });
    const res = await api.call('get', '/v1/me', outsideKey.secret).set('X-Forwarded-For', '203.0.113.7');
    expectProblem(res, 403, 'permission_error', 'ip_not_allowed');
    const loopbackKey = await api.createKey({ environment: 'live', scope: 'read', ip_allowlist: ['127.0.0.1'] });
    expect((await api.call('get', '/v1/me', loopbackKey.secret).set('X-Forwarded-For', '203.0.113.99')).status).toBe(200);
  });

  it('when an allowlist entry is not an address or range, then 422 invalid_value pointing at it', async () => {
    const res = await proxied
      .call('post', '/v1/api_keys')
      .send({ name: 'bad', environment: 'live', scope: 'read', ip_allowlist: ['10.0.0.1', '999.1.1.1', '10.0.0.0/33'] });
    expectProblem(res, 422, 'validation_error', 'invalid_value');
    expect(res.body.details.errors.map((issue: { pointer: string; code: string }) => `${issue.pointer} ${issue.code}`)).toEqual([
      '/ip_allowlist/1 invalid_ip',
      '/ip_allowlist/2 invalid_ip',
    ]);
  });
});

describe('HTTPS only', () => {
  it('when a request arrives over plain HTTP, then 403 https_required with the usual headers', async () => {
    const plain = http.createServer(api.app);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
      const res = await request(base).get('/v1/me').set('Authorization', `Bearer ${api.workspace.live_admin_key}`);
      expectProblem(res, 403, 'permission_error', 'https_required');
      // Nothing is served over HTTP, not even the published document.
      expectProblem(await request(base).get('/openapi.json'), 403, 'permission_error', 'https_required');
      expectProblem(await request(base).post('/v1/forms').send(formBody('Plain')), 403, 'permission_error', 'https_required');
    } finally {
      await new Promise<void>((resolve) => plain.close(() => resolve()));
    }
  });

  it('when a trusted proxy says the client used plain HTTP, then 403 https_required', async () => {
    const proxied = await watchedApi({ trustedProxies: ['127.0.0.1'] });
    try {
      const res = await proxied.call('get', '/v1/me').set('X-Forwarded-Proto', 'http');
      expectProblem(res, 403, 'permission_error', 'https_required');
      expect((await proxied.call('get', '/v1/me').set('X-Forwarded-Proto', 'https')).status).toBe(200);
      proxied.expectNoInternals();
    } finally {
      await proxied.close();
    }
  });

  it('when an untrusted peer sends X-Forwarded-Proto: http over TLS, then the header is ignored', async () => {
    const res = await api.call('get', '/v1/me').set('X-Forwarded-Proto', 'http');
    expect(res.status).toBe(200);
  });
});

describe('scopes', () => {
  const contract = loadContract();
  const below = (scope: string) => contract.scopeOrder.slice(0, contract.scopeOrder.indexOf(scope as never));
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    for (const scope of contract.scopeOrder) keys[scope] = (await api.createKey({ environment: 'live', scope })).secret;
  });

  // Every operation the document declares, with every scope below its minimum: the table comes from the
  // document, so a new operation is covered as soon as it is declared.
  const cases = contract.operations
    .filter((operation) => operation.authenticated && operation.minScope !== null)
    .flatMap((operation) => below(operation.minScope!).map((scope) => ({ scope, operation })));

  it('covers every scope level below admin', () => {
    expect(new Set(cases.map((entry) => entry.scope))).toEqual(new Set(['read', 'read_write']));
  });

  it.each(
    cases.map(({ scope, operation }) => [scope, operation.method.toUpperCase(), operation.path, operation.minScope!, operation] as const),
  )('when a %s key calls %s %s, then 403 insufficient_scope (needs %s)', async (scope, _method, _path, minScope, operation) => {
    const path = `/v1${operation.path.replace('{version}', '1').replace(/\{[^}]+\}/g, 'form_AAAAAAAAAAAAAAAAAAAAAAAA')}`;
    const res = await api.call(operation.method, path, keys[scope]!);
    expectProblem(res, 403, 'permission_error', 'insufficient_scope');
    expect(res.body.details).toEqual({ required_scope: minScope, granted_scope: scope });
  });

  it('when a read key reads, then it may', async () => {
    const res = await api.call('get', '/v1/forms', keys.read!);
    expect(res.status).toBe(200);
    expectEnvelopeHeaders(res);
  });

  it('when a read_write key creates a form, then it may', async () => {
    expect((await api.call('post', '/v1/forms', keys.read_write!).send(formBody('By read_write'))).status).toBe(201);
  });

  it('when an admin key calls admin operations, then it may', async () => {
    for (const path of ['/v1/api_keys', '/v1/audit_events', '/v1/team/members', '/v1/team/invites']) {
      const res = await api.call('get', path, keys.admin!);
      expect(res.status, path).toBe(200);
    }
  });

  it('when any valid key asks who it is, then GET /v1/me needs no particular scope', async () => {
    for (const scope of contract.scopeOrder) expect((await api.call('get', '/v1/me', keys[scope]!)).body.scope).toBe(scope);
  });
});
