/**
 * The integrations API: CRUD, the URL rules (SSRF), attachments, test mode, dispatch and logs. Deliveries
 * themselves (what the worker sends) are in integrations-delivery.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createForm, createIntegration, logsOf, PUBLIC_URL } from '../support/factories.js';
import { createTestApi } from '../support/harness.js';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { testWebhookUrls } from './integrations-support.js';

const api = useWatchedApi(() => ({ webhookUrls: testWebhookUrls(), rateLimits: generousLimits }));

const issuesOf = (body: { details?: { errors?: Array<{ pointer: string; code: string }> } }) =>
  (body.details?.errors ?? []).map(({ pointer, code }) => ({ pointer, code }));

describe('POST /v1/integrations', () => {
  it('when the URL is public https, then 201 with Location, the full integration and its signing secret, once', async () => {
    const res = await api
      .call('post', '/v1/integrations')
      .send({ url: PUBLIC_URL, events: ['submission.created', 'form.created'], description: 'CRM' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/v1/integrations/${res.body.id}`);
    expect(res.body).toMatchObject({
      object: 'integration',
      type: 'webhook',
      url: PUBLIC_URL,
      events: ['submission.created', 'form.created'],
      enabled: true,
      description: 'CRM',
      form_id: null,
      test: false,
    });
    expect(res.body.id).toMatch(/^int_[0-9A-Za-z]{24}$/);
    expect(res.body.signing_secret).toMatch(/^whsec_[0-9A-Za-z]{32,64}$/);
    expect(res.body.secret_hint).toBe(`whsec_…${res.body.signing_secret.slice(-4)}`);

    const again = await api.call('get', `/v1/integrations/${res.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body.signing_secret).toBeUndefined();
    expect(JSON.stringify(again.body)).not.toContain(res.body.signing_secret);
    expect(again.body.secret_hint).toBe(res.body.secret_hint);
  });

  it('when optional fields are omitted, then enabled is true and description and form_id are null', async () => {
    const created = await createIntegration(api, {});
    expect(created).toMatchObject({ enabled: true, description: null, form_id: null });
  });

  it('when two integrations are created, then their secrets differ', async () => {
    const [a, b] = [await createIntegration(api, {}), await createIntegration(api, {})];
    expect(a.signing_secret).not.toBe(b.signing_secret);
  });

  it('when the URL is http, then 400 with the schema issue on /url', async () => {
    const res = await api.call('post', '/v1/integrations').send({ url: 'http://hooks.example.com/x', events: ['form.created'] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_parameters');
    expect(issuesOf(res.body)).toContainEqual({ pointer: '/url', code: 'pattern' });
  });

  it.each([
    ['loopback IPv4', 'https://127.0.0.1/hook'],
    ['loopback IPv4, another spelling', 'https://2130706433/hook'],
    ['private 10/8', 'https://10.0.0.7/hook'],
    ['private 192.168/16', 'https://192.168.1.20:8443/hook'],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data'],
    ['carrier-grade NAT', 'https://100.64.0.1/hook'],
    ['unspecified', 'https://0.0.0.0/hook'],
    ['multicast', 'https://224.0.0.1/hook'],
    ['loopback IPv6', 'https://[::1]/hook'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['unique-local IPv6', 'https://[fd12:3456::1]/hook'],
    ['link-local IPv6', 'https://[fe80::1]/hook'],
    ['a host name resolving to loopback', 'https://localhost/hook'],
    ['a host name resolving to a private address', 'https://intranet.example.com/hook'],
    ['a host name resolving to link-local', 'https://metadata.example.com/hook'],
    ['a host name with one private address among public ones', 'https://mixed.example.com/hook'],
    ['a host name that does not resolve', 'https://nowhere.example.com/hook'],
  ])('when the URL is %s, then 422 invalid_value on /url (not_public_https)', async (_case, url) => {
    const res = await api.call('post', '/v1/integrations').send({ url, events: ['form.created'] });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: 'validation_error', code: 'invalid_value' });
    expect(issuesOf(res.body)).toEqual([{ pointer: '/url', code: 'not_public_https' }]);
  });

  it.each([
    ['loopback', 'https://127.0.0.1:9000/hook', true],
    ['private', 'https://10.0.0.7/hook', true],
    ['multicast', 'https://224.0.0.1/hook', false],
  ])('when the URL is %s, then the message says whether ALLOW_PRIVATE_WEBHOOK_URLS would allow it', async (range, url, allowable) => {
    const res = await api.call('post', '/v1/integrations').send({ url, events: ['form.created'] });
    expect(res.status).toBe(422);
    const message = (res.body as { details: { errors: Array<{ message: string }> } }).details.errors[0]?.message;
    expect(message).toContain(`it resolves to a ${range} address, not a public one`);
    expect(message?.includes('ALLOW_PRIVATE_WEBHOOK_URLS=true')).toBe(allowable);
  });

  it('when the host resolves to public IPv6 only, then it is accepted', async () => {
    await createIntegration(api, { url: 'https://v6.example.com/hook' });
  });

  it('when form_id names no form and the URL is private too, then 422 lists both issues', async () => {
    const res = await api
      .call('post', '/v1/integrations')
      .send({ url: 'https://10.0.0.1/', events: ['form.created'], form_id: 'form_000000000000000000000000' });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)).toEqual([
      { pointer: '/url', code: 'not_public_https' },
      { pointer: '/form_id', code: 'not_found' },
    ]);
  });

  it('when events is empty or repeats a type, then 400', async () => {
    for (const events of [[], ['form.created', 'form.created'], ['form.exploded']]) {
      const res = await api.call('post', '/v1/integrations').send({ url: PUBLIC_URL, events });
      expect(res.status).toBe(400);
    }
  });

  it('when the key has read scope, then 403 insufficient_scope', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const res = await api.call('post', '/v1/integrations', key.secret).send({ url: PUBLIC_URL, events: ['form.created'] });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });

  it('when the same Idempotency-Key is sent twice, then the first response (and secret) is replayed', async () => {
    const send = () =>
      api
        .call('post', '/v1/integrations')
        .set('Idempotency-Key', 'int-create-1')
        .send({ url: PUBLIC_URL, events: ['form.created'] });
    const first = await send();
    const second = await send();
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.id).toBe(first.body.id);
  });
});

describe('GET /v1/integrations', () => {
  it('when listed, then newest first, paged by cursor', async () => {
    const older = await createIntegration(api, { description: 'older' });
    const newer = await createIntegration(api, { description: 'newer' });
    const page = await api.call('get', '/v1/integrations?limit=1');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ object: 'list', has_more: true, data: [{ id: newer.id }] });
    const next = await api.call('get', `/v1/integrations?limit=1&starting_after=${newer.id}`);
    expect(next.body.data[0].id).toBe(older.id);
    const back = await api.call('get', `/v1/integrations?limit=1&ending_before=${older.id}`);
    expect(back.body.data[0].id).toBe(newer.id);
    for (const item of page.body.data) expect(item.signing_secret).toBeUndefined();
  });

  it('when both cursors are given, then 400', async () => {
    const res = await api.call(
      'get',
      '/v1/integrations?starting_after=int_000000000000000000000000&ending_before=int_000000000000000000000000',
    );
    expect(res.status).toBe(400);
  });

  it('when the cursor is not in the list, then 400 invalid_cursor', async () => {
    const res = await api.call('get', '/v1/integrations?starting_after=int_000000000000000000000000');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_cursor');
  });

  it('when a read key lists, then 200', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    expect((await api.call('get', '/v1/integrations', key.secret)).status).toBe(200);
  });
});

describe('GET /v1/integrations/{id}', () => {
  it('when the id is unknown, then 404 resource_not_found', async () => {
    const res = await api.call('get', '/v1/integrations/int_000000000000000000000000');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('resource_not_found');
  });

  it('when the integration belongs to another workspace, then 404', async () => {
    const other = await api.otherWorkspace();
    const theirs = await createIntegration(api, {}, other.live_admin_key);
    expect((await api.call('get', `/v1/integrations/${theirs.id}`)).status).toBe(404);
    const list = await api.call('get', '/v1/integrations?limit=100');
    expect(list.body.data.map((i: { id: string }) => i.id)).not.toContain(theirs.id);
  });
});

describe('PATCH /v1/integrations/{id}', () => {
  it('when fields are given, then only they change; events are replaced whole', async () => {
    const created = await createIntegration(api, { events: ['form.created', 'form.updated'], description: 'note' });
    const res = await api.call('patch', `/v1/integrations/${created.id}`).send({ enabled: false, events: ['submission.created'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      enabled: false,
      events: ['submission.created'],
      description: 'note',
      url: PUBLIC_URL,
      secret_hint: created.secret_hint,
    });
    const cleared = await api.call('patch', `/v1/integrations/${created.id}`).send({ description: null });
    expect(cleared.body.description).toBeNull();
    expect(cleared.body.enabled).toBe(false);
  });

  it('when the new URL is private, then 422 invalid_value and nothing changes', async () => {
    const created = await createIntegration(api, {});
    const res = await api.call('patch', `/v1/integrations/${created.id}`).send({ url: 'https://[::1]:8443/x', enabled: false });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)).toEqual([{ pointer: '/url', code: 'not_public_https' }]);
    expect((await api.call('get', `/v1/integrations/${created.id}`)).body).toMatchObject({ url: PUBLIC_URL, enabled: true });
  });

  it('when the body is empty, then 400', async () => {
    const created = await createIntegration(api, {});
    expect((await api.call('patch', `/v1/integrations/${created.id}`).send({})).status).toBe(400);
  });

  it('when PUT is used, then 405 with Allow', async () => {
    const created = await createIntegration(api, {});
    const res = await api.call('put', `/v1/integrations/${created.id}`).send({ url: PUBLIC_URL, events: ['form.created'] });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('PATCH');
  });

  it('when the id is unknown, then 404', async () => {
    expect((await api.call('patch', '/v1/integrations/int_000000000000000000000000').send({ enabled: false })).status).toBe(404);
  });
});

describe('DELETE /v1/integrations/{id}', () => {
  it('when deleted, then 200 deleted, and it and its logs are gone', async () => {
    const created = await createIntegration(api, {});
    await api.call('post', `/v1/integrations/${created.id}/dispatch`).expect(202);
    const res = await api.call('delete', `/v1/integrations/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, object: 'integration', deleted: true });
    expect((await api.call('get', `/v1/integrations/${created.id}`)).status).toBe(404);
    expect((await api.call('get', `/v1/integrations/${created.id}/logs`)).status).toBe(404);
    expect((await api.call('delete', `/v1/integrations/${created.id}`)).status).toBe(404);
  });
});

describe('POST /v1/integrations/{id}/dispatch', () => {
  it('when sent without a body, then 202 with the pending first attempt of a new ping', async () => {
    const created = await createIntegration(api, {});
    const res = await api.call('post', `/v1/integrations/${created.id}/dispatch`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      object: 'integration_log',
      integration_id: created.id,
      event_type: 'integration.ping',
      attempt: 1,
      status: 'pending',
      url: PUBLIC_URL,
      mock: false,
      response_status: null,
      duration_ms: null,
      error: null,
      next_attempt_at: null,
      test: false,
    });
    expect(res.body.id).toMatch(/^dlv_/);
    expect(res.body.event_id).toMatch(/^evt_/);
    expect(await logsOf(api, created.id)).toEqual([expect.objectContaining({ id: res.body.id })]);
  });

  it('when sent with {} to a paused integration, then a ping is queued all the same', async () => {
    const created = await createIntegration(api, { enabled: false });
    const res = await api.call('post', `/v1/integrations/${created.id}/dispatch`).send({});
    expect(res.status).toBe(202);
    expect(res.body.event_type).toBe('integration.ping');
  });

  it('when event_id names an earlier event it subscribes to, then that event is queued again, same id', async () => {
    const created = await createIntegration(api, { events: ['form.created'] });
    const form = await createForm(api, { name: 'Replayed' });
    const [original] = await logsOf(api, created.id, undefined, '?event_type=form.created');
    expect(original).toBeDefined();
    const res = await api.call('post', `/v1/integrations/${created.id}/dispatch`).send({ event_id: original!.event_id });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ event_id: original!.event_id, event_type: 'form.created', attempt: 1, status: 'pending' });
    expect(res.body.id).not.toBe(original!.id);
    expect(form.id).toBeDefined();
  });

  it('when event_id names no event of this environment, then 422 invalid_value on /event_id', async () => {
    const created = await createIntegration(api, {});
    const res = await api.call('post', `/v1/integrations/${created.id}/dispatch`).send({ event_id: 'evt_000000000000000000000000' });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)).toEqual([{ pointer: '/event_id', code: 'not_found' }]);
  });

  it('when the integration does not subscribe to the event, then 422 not_subscribed', async () => {
    const listener = await createIntegration(api, { events: ['form.created'] });
    const other = await createIntegration(api, { events: ['submission.created'] });
    await createForm(api, { name: 'Not for other' });
    const [log] = await logsOf(api, listener.id, undefined, '?event_type=form.created&limit=1');
    const res = await api.call('post', `/v1/integrations/${other.id}/dispatch`).send({ event_id: log!.event_id });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)).toEqual([{ pointer: '/event_id', code: 'not_subscribed' }]);
  });

  it("when the integration is limited to another form, then replaying this form's event gets 422 not_subscribed", async () => {
    const formA = await createForm(api, { name: 'Form A' });
    const formB = await createForm(api, { name: 'Form B' });
    const onA = await createIntegration(api, { events: ['form.updated'], form_id: formA.id });
    const onB = await createIntegration(api, { events: ['form.updated'], form_id: formB.id });
    await api.call('patch', `/v1/forms/${formA.id}`).send({ name: 'Form A2' }).expect(200);
    const [log] = await logsOf(api, onA.id);
    expect(log).toMatchObject({ event_type: 'form.updated' });
    expect(await logsOf(api, onB.id)).toEqual([]);
    const res = await api.call('post', `/v1/integrations/${onB.id}/dispatch`).send({ event_id: log!.event_id });
    expect(res.status).toBe(422);
    expect(issuesOf(res.body)).toEqual([{ pointer: '/event_id', code: 'not_subscribed' }]);
  });

  it('when the integration is unknown, then 404', async () => {
    expect((await api.call('post', '/v1/integrations/int_000000000000000000000000/dispatch')).status).toBe(404);
  });

  it('when the key has read scope, then 403 insufficient_scope', async () => {
    const created = await createIntegration(api, {});
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const res = await api.call('post', `/v1/integrations/${created.id}/dispatch`, key.secret);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });
});

describe('GET /v1/integrations/{id}/logs', () => {
  it('when filtered by status or event type, then only those entries, newest first, paged', async () => {
    const created = await createIntegration(api, { events: ['form.created'] });
    await createForm(api, { name: 'Logged 1' });
    await createForm(api, { name: 'Logged 2' });
    await api.call('post', `/v1/integrations/${created.id}/dispatch`).expect(202);
    const all = await logsOf(api, created.id);
    expect(all.map((log) => log.event_type)).toEqual(['integration.ping', 'form.created', 'form.created']);
    expect((await logsOf(api, created.id, undefined, '?event_type=form.created')).length).toBe(2);
    expect((await logsOf(api, created.id, undefined, '?status=pending')).length).toBe(3);
    expect((await logsOf(api, created.id, undefined, '?status=succeeded')).length).toBe(0);
    const page = await api.call('get', `/v1/integrations/${created.id}/logs?limit=2`);
    expect(page.body.has_more).toBe(true);
    const rest = await api.call('get', `/v1/integrations/${created.id}/logs?limit=2&starting_after=${page.body.data[1].id}`);
    expect(rest.body).toMatchObject({ has_more: false, data: [{ id: all[2]!.id }] });
  });

  it('when a filter value is not in the enum, then 400', async () => {
    const created = await createIntegration(api, {});
    expect((await api.call('get', `/v1/integrations/${created.id}/logs?status=lost`)).status).toBe(400);
    expect((await api.call('get', `/v1/integrations/${created.id}/logs?event_type=form.exploded`)).status).toBe(400);
  });

  it('when a read key asks, then 200', async () => {
    const created = await createIntegration(api, {});
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    expect((await api.call('get', `/v1/integrations/${created.id}/logs`, key.secret)).status).toBe(200);
  });
});

describe('events fan out to subscribers only', () => {
  it('when an integration is paused or subscribes to other types, then a form event queues nothing for it', async () => {
    const paused = await createIntegration(api, { events: ['form.created'], enabled: false });
    const otherType = await createIntegration(api, { events: ['form.deleted'] });
    const listening = await createIntegration(api, { events: ['form.created'] });
    await createForm(api, { name: 'Fan-out' });
    expect(await logsOf(api, paused.id)).toEqual([]);
    expect(await logsOf(api, otherType.id)).toEqual([]);
    expect(await logsOf(api, listening.id)).toEqual([
      expect.objectContaining({ event_type: 'form.created', status: 'pending', attempt: 1 }),
    ]);
  });

  it("when a form limited integration's form is deleted, then the integration stays and gets form.deleted", async () => {
    const form = await createForm(api, { name: 'Doomed' });
    const created = await createIntegration(api, { events: ['form.deleted'], form_id: form.id });
    await api.call('delete', `/v1/forms/${form.id}`).expect(200);
    const res = await api.call('get', `/v1/integrations/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body.form_id).toBe(form.id);
    expect(await logsOf(api, created.id)).toEqual([expect.objectContaining({ event_type: 'form.deleted' })]);
  });
});

describe('attached keys', () => {
  it('when a form-attached key creates, lists and reads, then it reaches only integrations of its form', async () => {
    const mine = await createForm(api, { name: 'Attached form' });
    const theirs = await createForm(api, { name: 'Other form' });
    const key = (await api.createKey({ environment: 'live', scope: 'read_write', attachment: { type: 'form', form_id: mine.id } })).secret;
    const workspaceWide = await createIntegration(api, {});

    const noForm = await api.call('post', '/v1/integrations', key).send({ url: PUBLIC_URL, events: ['form.created'] });
    expect(noForm.status).toBe(403);
    expect(noForm.body.code).toBe('form_not_attached');
    const otherForm = await api
      .call('post', '/v1/integrations', key)
      .send({ url: PUBLIC_URL, events: ['form.created'], form_id: theirs.id });
    expect(otherForm.status).toBe(403);
    expect(otherForm.body.code).toBe('form_not_attached');

    const own = await createIntegration(api, { form_id: mine.id, events: ['submission.created'] }, key);
    const list = await api.call('get', '/v1/integrations?limit=100', key);
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([own.id]);
    expect((await api.call('get', `/v1/integrations/${workspaceWide.id}`, key)).body.code).toBe('form_not_attached');
    const widen = await api.call('patch', `/v1/integrations/${own.id}`, key).send({ form_id: null });
    expect(widen.status).toBe(403);
    expect(widen.body.code).toBe('form_not_attached');
    expect((await api.call('patch', `/v1/integrations/${own.id}`, key).send({ enabled: false })).status).toBe(200);
  });

  it('when a folder-attached key lists, then it sees integrations of forms in its folder', async () => {
    const folder = await api.call('post', '/v1/folders').send({ name: 'Campaigns' });
    expect(folder.status).toBe(201);
    const inFolder = await createForm(api, { name: 'In folder', folder_id: folder.body.id });
    const outside = await createForm(api, { name: 'Outside folder' });
    const key = (await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'folder', folder_id: folder.body.id } }))
      .secret;
    const inside = await createIntegration(api, { form_id: inFolder.id });
    const notInside = await createIntegration(api, { form_id: outside.id });
    const list = await api.call('get', '/v1/integrations?limit=100', key);
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([inside.id]);
    expect((await api.call('get', `/v1/integrations/${inside.id}`, key)).status).toBe(200);
    expect((await api.call('get', `/v1/integrations/${notInside.id}`, key)).status).toBe(403);
  });
});

describe('test mode', () => {
  it('when a test key creates an integration, then it is test: true and invisible to live keys', async () => {
    const created = await createIntegration(api, {}, api.workspace.test_admin_key);
    expect(created.test).toBe(true);
    expect((await api.call('get', `/v1/integrations/${created.id}`)).status).toBe(404);
    const live = await api.call('get', '/v1/integrations?limit=100');
    expect(live.body.data.map((i: { id: string }) => i.id)).not.toContain(created.id);
  });

  it('when a test key reads, then it sees the live integrations too, but cannot change them (403 live_resource)', async () => {
    const live = await createIntegration(api, {});
    const test = api.workspace.test_admin_key;
    expect((await api.call('get', `/v1/integrations/${live.id}`, test)).status).toBe(200);
    const list = await api.call('get', '/v1/integrations?limit=100', test);
    expect(list.body.data.map((i: { id: string }) => i.id)).toContain(live.id);
    for (const res of [
      await api.call('patch', `/v1/integrations/${live.id}`, test).send({ enabled: false }),
      await api.call('delete', `/v1/integrations/${live.id}`, test),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('live_resource');
    }
  });

  it('when a test key dispatches to a live integration, then a mock test delivery is logged in the sandbox only', async () => {
    const live = await createIntegration(api, {});
    const res = await api.call('post', `/v1/integrations/${live.id}/dispatch`, api.workspace.test_admin_key);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ mock: true, test: true, status: 'pending' });
    expect(await logsOf(api, live.id)).toEqual([]);
    expect(await logsOf(api, live.id, api.workspace.test_admin_key)).toEqual([expect.objectContaining({ id: res.body.id })]);
  });

  it('when a test key replays a live event, then 422: events are per environment', async () => {
    const live = await createIntegration(api, { events: ['form.created'] });
    await createForm(api, { name: 'Live event' });
    const [log] = await logsOf(api, live.id);
    const res = await api
      .call('post', `/v1/integrations/${live.id}/dispatch`, api.workspace.test_admin_key)
      .send({ event_id: log!.event_id });
    expect(res.status).toBe(422);
  });

  it('when test data is reset, then test integrations and every test delivery are deleted and counted', async () => {
    const fresh = await createTestApi({ webhookUrls: testWebhookUrls() });
    try {
      const test = fresh.workspace.test_admin_key;
      const live = await createIntegration(fresh, { events: ['form.created'] });
      const sandbox = await createIntegration(fresh, { events: ['form.created'] }, test);
      await createForm(fresh, { name: 'Sandbox form' }, test);
      await createForm(fresh, { name: 'Live form' });
      const res = await fresh.call('delete', '/v1/test_data', test);
      expect(res.status).toBe(200);
      expect(res.body.deleted).toMatchObject({ integrations: 1, integration_logs: 2 });
      expect((await fresh.call('get', `/v1/integrations/${sandbox.id}`, test)).status).toBe(404);
      expect(await logsOf(fresh, live.id)).toEqual([expect.objectContaining({ event_type: 'form.created', test: false })]);
      expect(await logsOf(fresh, live.id, test)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});

describe('the default app', () => {
  it('when built without an events option, then integrations use real DNS and refuse localhost', async () => {
    const plain = await createTestApi();
    try {
      const res = await plain.call('post', '/v1/integrations').send({ url: 'https://localhost:8443/hook', events: ['form.created'] });
      expect(res.status).toBe(422);
      expect(issuesOf(res.body)).toEqual([{ pointer: '/url', code: 'not_public_https' }]);
    } finally {
      await plain.close();
    }
  });
});
