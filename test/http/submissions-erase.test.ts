/**
 * Forgetting a person (POST /v1/submissions/erase): every submission of the key's environment whose email answer
 * carries the address goes, in every form, with its share of the analytics and its pending webhook attempts; the
 * audit log records the erasure without the address; a repeat erases nothing.
 */
import { describe, expect, it } from 'vitest';
import { createDeliveryWorker } from '../../src/domain/integrations/worker.js';
import { createForm, createIntegration, type Form, logsOf, submit } from '../support/factories.js';
import { useWatchedApi } from '../support/http-checks.js';
import { storedRows } from '../support/stores.js';
import { testWebhookUrls } from './integrations-support.js';
import { anaAnswers, budgetAnswers, demoForm, noBudgetAnswers } from './submissions-support.js';

const highLimits = { perKeyPerSecond: 100_000, perWorkspacePerMinute: 10_000_000, failedAuthPerAddressPerMinute: 10_000 };
const api = useWatchedApi(() => ({ rateLimits: highLimits, webhookUrls: testWebhookUrls() }));

const erase = (email: string, key = api.workspace.live_admin_key) => api.call('post', '/v1/submissions/erase', key).send({ email });
const status = async (path: string, key = api.workspace.live_admin_key) => (await api.call('get', path, key)).status;
const withEmail = (email: string) => ({ ...anaAnswers(), email });

describe('POST /v1/submissions/erase', () => {
  it('when a person left submissions in two forms, then every one carrying the address goes, whatever its case, and the others stay', async () => {
    const [first, second] = [await createForm(api, demoForm()), await createForm(api, demoForm())];
    const kept = await submit(api, { form_id: first.id, answers: noBudgetAnswers() });
    const erased = [
      await submit(api, { form_id: first.id, answers: withEmail('dana.cruz@example.org') }),
      await submit(api, { form_id: second.id, answers: withEmail('Dana.Cruz@EXAMPLE.org') }),
      await submit(api, { form_id: second.id, answers: { full_name: 'Dana', email: 'DANA.CRUZ@example.org' }, status: 'partial' }),
    ];
    // Another address that only contains hers is not hers.
    const lookalike = await submit(api, { form_id: first.id, answers: withEmail('xdana.cruz@example.org') });

    const res = await erase('  Dana.Cruz@Example.ORG ');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'submission_erasure',
      environment: 'live',
      deleted_submissions: 3,
      canceled_deliveries: 0,
      erased_at: expect.any(String),
      request_id: res.headers['x-request-id'],
    });
    for (const submission of erased) expect(await status(`/v1/submissions/${submission.id}`)).toBe(404);
    expect(await status(`/v1/submissions/${kept.id}`)).toBe(200);
    expect(await status(`/v1/submissions/${lookalike.id}`)).toBe(200);
    const [index] = await storedRows(api.store, 'SELECT COUNT(*) AS n FROM submission_emails WHERE submission_id = ?', erased[0]!.id);
    expect(Number(index!.n)).toBe(0);
  });

  it('when the erased submissions were listed and searched before, then neither the list nor a search by the address shows them after', async () => {
    const form = await createForm(api, demoForm());
    const erased = await submit(api, { form_id: form.id, answers: withEmail('rio.vance@example.org') });
    const kept = await submit(api, { form_id: form.id, answers: noBudgetAnswers() });
    const ids = async (query: string) =>
      (await api.call('get', `/v1/submissions?form_id=${form.id}${query}`)).body.data
        .map((submission: { id: string }) => submission.id)
        .sort();
    // Read first, so a cache of listed rows holds them.
    expect(await ids('')).toEqual([kept.id, erased.id].sort());
    expect(await ids('&q=rio.vance')).toEqual([erased.id]);

    await erase('rio.vance@example.org');

    expect(await ids('')).toEqual([kept.id]);
    expect(await ids('&q=rio.vance')).toEqual([]);
  });

  it('when the same erasure is asked again, then it deletes nothing; with the same Idempotency-Key, then the first answer is replayed', async () => {
    const form = await createForm(api, demoForm());
    await submit(api, { form_id: form.id, answers: withEmail('eli@example.org') });
    const first = await erase('eli@example.org').set('Idempotency-Key', 'erase-eli-1');
    const replay = await erase('eli@example.org').set('Idempotency-Key', 'erase-eli-1');
    const repeat = await erase('eli@example.org');

    expect(first.body.deleted_submissions).toBe(1);
    expect(replay.status).toBe(200);
    expect({ ...replay.body, request_id: undefined }).toEqual({ ...first.body, request_id: undefined });
    expect(repeat.status).toBe(200);
    expect(repeat.body.deleted_submissions).toBe(0);
  });

  it('when a test key erases, then only test submissions go; the live ones need a live key', async () => {
    const form = await createForm(api, demoForm());
    const live = await submit(api, { form_id: form.id, answers: withEmail('fay@example.org') });
    const test = await submit(api, { form_id: form.id, answers: withEmail('fay@example.org') }, api.workspace.test_admin_key);

    const fromTest = await erase('fay@example.org', api.workspace.test_admin_key);
    expect(fromTest.body).toMatchObject({ environment: 'test', deleted_submissions: 1 });
    expect(await status(`/v1/submissions/${test.id}`, api.workspace.test_admin_key)).toBe(404);
    expect(await status(`/v1/submissions/${live.id}`)).toBe(200);

    expect((await erase('fay@example.org')).body).toMatchObject({ environment: 'live', deleted_submissions: 1 });
    expect(await status(`/v1/submissions/${live.id}`)).toBe(404);
  });

  it('when another workspace erases the address, then this workspace keeps its submissions', async () => {
    const form = await createForm(api, demoForm());
    const mine = await submit(api, { form_id: form.id, answers: withEmail('gus@example.org') });
    const other = await api.otherWorkspace();

    expect((await erase('gus@example.org', other.live_admin_key)).body.deleted_submissions).toBe(0);
    expect(await status(`/v1/submissions/${mine.id}`)).toBe(200);
  });

  it('when submissions are erased, then the analytics equal those of a form that never had them', async () => {
    const analyticsOf = async (form: Form) => {
      const res = await api.call('get', `/v1/analytics?form_id=${form.id}`);
      expect(res.status).toBe(200);
      const { form_id: _form, request_id: _request, ...figures } = res.body;
      return figures;
    };
    const [erasedFrom, twin] = [await createForm(api, demoForm()), await createForm(api, demoForm())];
    for (const form of [erasedFrom, twin]) {
      await submit(api, { form_id: form.id, answers: budgetAnswers(60_000) });
      await submit(api, { form_id: form.id, answers: noBudgetAnswers('201_plus') });
    }
    await submit(api, { form_id: erasedFrom.id, answers: withEmail('hal@example.org') });
    await submit(api, { form_id: erasedFrom.id, answers: { full_name: 'Hal', email: 'hal@example.org' }, status: 'partial' });
    expect(await analyticsOf(erasedFrom)).not.toEqual(await analyticsOf(twin));

    expect((await erase('hal@example.org')).body.deleted_submissions).toBe(2);

    expect(await analyticsOf(erasedFrom)).toEqual(await analyticsOf(twin));
  });

  it('when an erasure is made, then the audit log records who and how many, never the address', async () => {
    const form = await createForm(api, demoForm());
    await submit(api, { form_id: form.id, answers: withEmail('ivy.secret@example.org') });
    await erase('Ivy.Secret@example.org');

    const res = await api.call('get', '/v1/audit_events?type=submissions.erased');
    expect(res.status).toBe(200);
    const event = res.body.data[0];
    expect(event).toMatchObject({
      type: 'submissions.erased',
      actor: { type: 'api_key' },
      target: { type: 'workspace', id: api.workspace.workspace_id },
      environment: 'live',
      reason: 'Erased 1 submission carrying one email address.',
    });
    expect(JSON.stringify(res.body).toLowerCase()).not.toContain('ivy.secret');
  });

  it('when attempts to send the submission to an integration are pending, then they are canceled and the stored event is gone', async () => {
    const integration = await createIntegration(api, { events: ['submission.created'] });
    const form = await createForm(api, demoForm());
    const submission = await submit(api, { form_id: form.id, answers: withEmail('jo@example.org') });
    const [pending] = await logsOf(api, integration.id);
    expect(pending).toMatchObject({ status: 'pending', event_type: 'submission.created' });

    const res = await erase('jo@example.org');

    expect(res.body).toMatchObject({ deleted_submissions: 1, canceled_deliveries: 1 });
    expect(await logsOf(api, integration.id)).toEqual([]);
    const events = await storedRows(api.store, 'SELECT id FROM events WHERE submission_id = ?', submission.id);
    expect(events).toEqual([]);
    const replay = await api.call('post', `/v1/integrations/${integration.id}/dispatch`).send({ event_id: pending!.event_id });
    // A replay names an event that no longer exists, as after the form's deletion.
    expect(replay.status).toBe(422);
    expect(replay.body.code).toBe('invalid_value');
  });

  it('when an attempt was made and its retry is pending, then only the retry is canceled: logs of attempts made stay, without the body', async () => {
    // A workspace of its own: no integration of another test receives these events.
    const { live_admin_key: key } = await api.otherWorkspace();
    const integration = await createIntegration(api, { events: ['submission.created'] }, key);
    const form = await createForm(api, demoForm(), key);
    const erased = await submit(api, { form_id: form.id, answers: withEmail('pia.moss@example.org') }, key);
    const kept = await submit(api, { form_id: form.id, answers: withEmail('quin@example.org') }, key);
    const eventOf = async (submissionId: string) =>
      (await storedRows(api.store, 'SELECT id FROM events WHERE submission_id = ?', submissionId))[0]!.id as string;
    const names = { [await eventOf(erased.id)]: 'erased', [await eventOf(kept.id)]: 'kept' };
    const logs = () => logsOf(api, integration.id, key);
    const attempts = async () => (await logs()).map((log) => `${names[log.event_id] ?? log.event_id} ${log.attempt} ${log.status}`).sort();
    // Every first attempt answers 500: each event has a failed attempt logged and a retry pending.
    await createDeliveryWorker(api.services, { transport: async () => ({ status: 500 }), random: () => 0.5 }).runDue();
    expect(await attempts()).toEqual(['erased 1 failed', 'erased 2 pending', 'kept 1 failed', 'kept 2 pending']);

    const res = await erase('pia.moss@example.org', key);

    expect(res.body).toMatchObject({ deleted_submissions: 1, canceled_deliveries: 1 });
    expect(await attempts()).toEqual(['erased 1 failed', 'kept 1 failed', 'kept 2 pending']);
    const made = (await logs()).find((log) => names[log.event_id] === 'erased');
    expect(made).toMatchObject({ status: 'failed', response_status: 500, event_type: 'submission.created' });
    expect(JSON.stringify(made).toLowerCase()).not.toContain('pia.moss');
  });

  it("when the person's create, resume and rescore are retried with their Idempotency-Keys after the erasure, then 409 idempotency_key_erased: no answers, nothing made again", async () => {
    const form = await createForm(api, demoForm());
    const contact = { full_name: 'Lena Marsh', email: 'lena.marsh@example.org' };
    const create = () =>
      api
        .call('post', '/v1/submissions')
        .set('Idempotency-Key', 'create-lena')
        .send({ form_id: form.id, answers: contact, status: 'partial' });
    const created = await create();
    expect(created.status).toBe(201);
    const resume = () =>
      api
        .call('patch', `/v1/submissions/${created.body.id}`)
        .set('Idempotency-Key', 'complete-lena')
        .send({ answers: { company_size: '1_10', has_budget: false, gdpr: true }, status: 'completed' });
    const rescore = () => api.call('post', `/v1/submissions/${created.body.id}/rescore`).set('Idempotency-Key', 'rescore-lena');
    expect((await resume()).status).toBe(200);
    expect((await rescore()).status).toBe(200);
    // Someone else's create under its own key, in the same form.
    const otherCreate = () =>
      api.call('post', '/v1/submissions').set('Idempotency-Key', 'create-tom').send({ form_id: form.id, answers: noBudgetAnswers() });
    const other = await otherCreate();
    // Before the erasure each retry is a replay of the answers.
    const replayed = await create();
    expect(replayed.status).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.answers).toEqual(contact);

    expect((await erase('lena.marsh@example.org')).body.deleted_submissions).toBe(1);

    for (const retry of [create, resume, rescore]) {
      const res = await retry();
      expect(res.status).toBe(409);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(res.body).toMatchObject({ type: 'conflict_error', code: 'idempotency_key_erased', request_id: res.headers['x-request-id'] });
      expect(JSON.stringify(res.body)).not.toMatch(/lena|marsh/i);
    }
    // The retried create made nothing: the form holds only the other person's submission.
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
    expect(listed.body.data.map((submission: { id: string }) => submission.id)).toEqual([other.body.id]);
    // The stored copies are gone, not only hidden; the other person's replay is untouched.
    const kept = await storedRows(api.store, 'SELECT sealed_response FROM idempotency_keys WHERE submission_id = ?', created.body.id);
    expect(kept).toEqual([{ sealed_response: null }, { sealed_response: null }, { sealed_response: null }]);
    const otherReplay = await otherCreate();
    expect(otherReplay.status).toBe(201);
    expect(otherReplay.body).toEqual({ ...other.body, request_id: otherReplay.headers['x-request-id'] });
  });

  it('when the same key is sent with another body after the erasure, then it is still idempotency_conflict', async () => {
    const form = await createForm(api, demoForm());
    const send = (email: string) =>
      api
        .call('post', '/v1/submissions')
        .set('Idempotency-Key', 'create-mo')
        .send({ form_id: form.id, answers: { full_name: 'Mo', email }, status: 'partial' });
    expect((await send('mo@example.org')).status).toBe(201);
    await erase('mo@example.org');

    const res = await send('someone.else@example.org');
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_conflict');
  });

  it('when the key is below admin or attached to a form, then 403 and nothing is erased', async () => {
    const form = await createForm(api, demoForm());
    const submission = await submit(api, { form_id: form.id, answers: withEmail('kai@example.org') });
    const readWrite = await api.createKey({ name: 'rw', environment: 'live', scope: 'read_write' });
    const attached = await api.createKey({
      name: 'attached',
      environment: 'live',
      scope: 'admin',
      attachment: { type: 'form', form_id: form.id },
    });

    const low = await erase('kai@example.org', readWrite.secret);
    expect(low.status).toBe(403);
    expect(low.body.code).toBe('insufficient_scope');
    const narrow = await erase('kai@example.org', attached.secret);
    expect(narrow.status).toBe(403);
    expect(narrow.body.code).toBe('form_not_attached');
    expect(await status(`/v1/submissions/${submission.id}`)).toBe(200);
  });

  it('when the address is missing or not an address, then 400 invalid_parameters', async () => {
    for (const body of [{}, { email: 'no-at-sign' }, { email: 'a@b', extra: 1 }]) {
      const res = await api.call('post', '/v1/submissions/erase').send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_parameters');
    }
  });
});

describe('deletions and responses kept for retries', () => {
  it('when a created submission is deleted, then a retry of its create gets 409 idempotency_key_erased, not the answers, and creates nothing', async () => {
    const form = await createForm(api, demoForm());
    const create = () =>
      api
        .call('post', '/v1/submissions')
        .set('Idempotency-Key', 'create-sol')
        .send({ form_id: form.id, answers: { full_name: 'Sol Ibarra', email: 'sol@example.org' }, status: 'partial' });
    const created = await create();
    expect(created.status).toBe(201);
    expect((await create()).headers['idempotent-replayed']).toBe('true');

    expect((await api.call('delete', `/v1/submissions/${created.body.id}`)).status).toBe(200);

    const retry = await create();
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({ type: 'conflict_error', code: 'idempotency_key_erased' });
    expect(JSON.stringify(retry.body)).not.toMatch(/sol/i);
    expect((await api.call('get', `/v1/submissions?form_id=${form.id}`)).body.data).toEqual([]);
  });

  /** A create under `key` that answered 201, and a function that retries it. */
  const createdWithKey = async (formId: string, idempotencyKey: string, apiKey = api.workspace.live_admin_key) => {
    const create = () =>
      api
        .call('post', '/v1/submissions', apiKey)
        .set('Idempotency-Key', idempotencyKey)
        .send({ form_id: formId, answers: { full_name: 'Tess Ruiz', email: 'tess@example.org' }, status: 'partial' });
    expect((await create()).status).toBe(201);
    return create;
  };
  const expectCleared = async (retry: Awaited<ReturnType<typeof createdWithKey>>) => {
    const res = await retry();
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_key_erased');
    expect(JSON.stringify(res.body)).not.toMatch(/tess/i);
  };

  it('when the form is deleted, then a retry of a create in it gets 409 idempotency_key_erased, not the answers', async () => {
    const form = await createForm(api, demoForm());
    const retry = await createdWithKey(form.id, 'create-tess-form');
    expect((await api.call('delete', `/v1/forms/${form.id}`)).status).toBe(200);
    await expectCleared(retry);
  });

  it("when test data is reset, then a retry of a test create gets 409 idempotency_key_erased; a live create's replay stays", async () => {
    const form = await createForm(api, demoForm());
    const testRetry = await createdWithKey(form.id, 'create-tess-test', api.workspace.test_admin_key);
    const liveRetry = await createdWithKey(form.id, 'create-tess-live');
    expect((await api.call('delete', '/v1/test_data', api.workspace.test_admin_key)).status).toBe(200);
    await expectCleared(testRetry);
    expect((await liveRetry()).status).toBe(201);
  });
});
