/**
 * The public operations a web page calls with a publishable key: the renderable form with its started token, and
 * submissions stored, scored, counted and delivered as POST /v1/submissions does, continued only with their resume
 * token. Live and test keys; the HTTP suite runs on both stores.
 *
 * The demo form (see submissions-support.ts): contact (full_name*, email*) → company (company_size*, has_budget*)
 * → budget (budget_usd*, only when has_budget) → finish (notes, gdpr*). company_size scores 0/10/25.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyStartedToken } from '../../src/domain/public/started-token.js';
import { createFolder, createForm, createIntegration, type Form, logsOf } from '../support/factories.js';
import { absentId, expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey, type PublishableKey, respelledStartedToken } from '../support/publishable-keys.js';
import { testWebhookUrls } from './integrations-support.js';
import { demoForm, testClock } from './submissions-support.js';

const clock = testClock('2026-05-04T09:00:00.000Z');
const api = useWatchedApi(() => ({ now: clock.now, rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));
let form: Form;
const keys = {} as Record<'live' | 'test', PublishableKey>;

const contact = { full_name: 'Tom Okafor', email: 'tom@brightdesk.example' };
const rest = { company_size: '201_plus', has_budget: false, gdpr: true };

const publicPost = (key: string, body: object) => api.call('post', '/v1/public/submissions', key).send(body);
const publicPatch = (key: string, id: string, body: object) => api.call('patch', `/v1/public/submissions/${id}`, key).send(body);

beforeAll(async () => {
  form = await createForm(api, demoForm());
  keys.live = await createPublishableKey(api, { environment: 'live' });
  keys.test = await createPublishableKey(api, { environment: 'test', allowed_origins: ['http://localhost:3000'] });
});

describe('GET /v1/public/forms/{id}', () => {
  it('when a page fetches a form, then it gets steps, fields and logic, without scoring, and a started token', async () => {
    const res = await api.call('get', `/v1/public/forms/${form.id}`, keys.live.value);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'public_form', id: form.id, name: form.name, version: 1, logic: form.logic });
    expect(res.body.steps.map((step: { id: string }) => step.id)).toEqual(form.steps.map((step) => step.id));
    expect(Object.keys(res.body)).not.toEqual(expect.arrayContaining(['scoring']));
    expect(JSON.stringify(res.body)).not.toMatch(/"score"|"scoring"|folder_id|workspace/);
    const companySize = res.body.steps[1].fields.find((field: { ref: string }) => field.ref === 'company_size');
    expect(companySize.options).toEqual([
      { value: '1_10', label: '1 to 10' },
      { value: '11_200', label: '11 to 200' },
      { value: '201_plus', label: 'More than 200' },
    ]);
    expect(res.body.started_token).toMatch(new RegExp(`^${Date.parse('2026-05-04T09:00:00.000Z')}\\.${form.id}\\.`));
  });

  it('when the started token is checked, then it verifies for its form and key only, and not once altered', async () => {
    const token: string = (await api.call('get', `/v1/public/forms/${form.id}`, keys.live.value)).body.started_token;
    const principalOf = async (value: string) => {
      const record = (await api.store.publishableKeys.findByValue(value))!;
      return { publishable: { key: record.key, tokenSecret: record.tokenSecret } } as Parameters<typeof verifyStartedToken>[0];
    };
    const live = await principalOf(keys.live.value);
    expect(verifyStartedToken(live, token, form.id)).toEqual(new Date('2026-05-04T09:00:00.000Z'));
    expect(verifyStartedToken(live, token, absentId('form'))).toBeUndefined();
    expect(verifyStartedToken(await principalOf(keys.test.value), token, form.id)).toBeUndefined();
    const altered = token.replace(/^\d{13}/, String(Date.parse('2026-05-04T08:00:00.000Z')));
    expect(verifyStartedToken(live, altered, form.id)).toBeUndefined();
    expect(verifyStartedToken(live, respelledStartedToken(token), form.id)).toBeUndefined();
  });

  it('when the form is unknown, another workspace’s, test-only for a live key, or outside the attachment, then 404', async () => {
    expectProblem(await api.call('get', `/v1/public/forms/${absentId('form')}`, keys.live.value), 404, 'not_found', 'resource_not_found');
    const testOnly = await createForm(api, {}, api.workspace.test_admin_key);
    expectProblem(await api.call('get', `/v1/public/forms/${testOnly.id}`, keys.live.value), 404, 'not_found', 'resource_not_found');
    expect((await api.call('get', `/v1/public/forms/${testOnly.id}`, keys.test.value)).status).toBe(200);
    expect((await api.call('get', `/v1/public/forms/${form.id}`, keys.test.value)).status).toBe(200);

    const other = await createForm(api);
    const attached = await createPublishableKey(api, { environment: 'live', attachment: { type: 'form', form_id: form.id } });
    expectProblem(await api.call('get', `/v1/public/forms/${other.id}`, attached.value), 404, 'not_found', 'resource_not_found');
    expect((await api.call('get', `/v1/public/forms/${form.id}`, attached.value)).status).toBe(200);
    const folder = await createFolder(api, 'Website');
    const filed = await createForm(api, { folder_id: folder.id });
    const inFolder = await createPublishableKey(api, { environment: 'live', attachment: { type: 'folder', folder_id: folder.id } });
    expect((await api.call('get', `/v1/public/forms/${filed.id}`, inFolder.value)).status).toBe(200);
    expectProblem(await api.call('get', `/v1/public/forms/${form.id}`, inFolder.value), 404, 'not_found', 'resource_not_found');
    const elsewhere = await api.otherWorkspace();
    const foreign = await createForm({ call: api.call, workspace: elsewhere }, {}, elsewhere.live_admin_key);
    expectProblem(await api.call('get', `/v1/public/forms/${foreign.id}`, keys.live.value), 404, 'not_found', 'resource_not_found');
  });
});

describe('POST /v1/public/submissions and PATCH /v1/public/submissions/{id}', () => {
  for (const environment of ['live', 'test'] as const) {
    it(`when a page submits partially and completes with its resume token (${environment}), then the workspace sees it scored and delivered`, async () => {
      const own = await createForm(api, demoForm({ name: `Public ${environment}` }));
      const admin = environment === 'live' ? api.workspace.live_admin_key : api.workspace.test_admin_key;
      const integration = await createIntegration(api, { events: ['submission.created', 'submission.completed'], form_id: own.id }, admin);
      const key = keys[environment].value;
      const started = await publicPost(key, {
        form_id: own.id,
        answers: contact,
        status: 'partial',
        context: { utm: { source: 'linkedin' } },
      })
        .set('User-Agent', 'Mozilla/5.0 (test)')
        .set('Referer', 'https://www.acme.example/demo');
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      expect(started.body).toEqual({
        object: 'public_submission',
        id: expect.stringMatching(/^sub_/),
        form_id: own.id,
        status: 'partial',
        resume_token: expect.stringMatching(/^srt_[0-9A-Za-z]{40}$/),
        resume_expires_at: '2026-06-03T09:00:00.000Z',
        request_id: expect.any(String),
      });
      const { id, resume_token } = started.body;

      const patched = await publicPatch(key, id, { resume_token, answers: rest, status: 'completed' });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body).toEqual({
        object: 'public_submission',
        id,
        form_id: own.id,
        status: 'completed',
        resume_expires_at: null,
        request_id: expect.any(String),
      });

      const stored = await api.call('get', `/v1/submissions/${id}`, admin);
      expect(stored.status).toBe(200);
      expect(stored.body).toMatchObject({
        status: 'completed',
        test: environment === 'test',
        score: 25,
        grade: 'B',
        answers: { ...contact, ...rest },
        context: { user_agent: 'Mozilla/5.0 (test)', referrer: 'https://www.acme.example/demo', utm: { source: 'linkedin' } },
      });
      const listed = await api.call('get', `/v1/submissions?form_id=${own.id}`, admin);
      expect(listed.body.data.map((submission: { id: string }) => submission.id)).toEqual([id]);
      const delivered = (await logsOf(api, integration.id, admin)).map((log) => log.event_type).sort();
      expect(delivered).toEqual(['submission.completed', 'submission.created']);
      // The other environment never sees it.
      const otherAdmin = environment === 'live' ? api.workspace.test_admin_key : api.workspace.live_admin_key;
      expect((await api.call('get', `/v1/submissions/${id}`, otherAdmin)).status).toBe(404);
      const otherKey = keys[environment === 'live' ? 'test' : 'live'].value;
      expect((await publicPatch(otherKey, id, { resume_token, answers: {} })).status).toBe(404);
    });
  }

  it('when a page creates a submission, then Location is the public path that continues it, never the secret-key one', async () => {
    const partial = await publicPost(keys.live.value, { form_id: form.id, answers: contact, status: 'partial' });
    expect(partial.status, JSON.stringify(partial.body)).toBe(201);
    expect(partial.headers.location).toBe(`/v1/public/submissions/${partial.body.id}`);
    const continued = await api
      .call('patch', partial.headers.location!, keys.live.value)
      .send({ resume_token: partial.body.resume_token, answers: rest, status: 'completed' });
    expect(continued.status, JSON.stringify(continued.body)).toBe(200);
    expect(continued.body).toMatchObject({ id: partial.body.id, status: 'completed' });
    const completed = await publicPost(keys.test.value, { form_id: form.id, answers: { ...contact, ...rest } });
    expect(completed.status).toBe(201);
    expect(completed.headers.location).toBe(`/v1/public/submissions/${completed.body.id}`);
  });

  it('when a submission is created completed, then no resume token is given, and the score never reaches the page', async () => {
    const res = await publicPost(keys.live.value, { form_id: form.id, answers: { ...contact, ...rest } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'completed', resume_token: null, resume_expires_at: null });
    expect(JSON.stringify(res.body)).not.toMatch(/score|grade/);
  });

  it('when answers do not satisfy the form, then 422 invalid_answers and nothing is stored', async () => {
    const res = await publicPost(keys.live.value, { form_id: form.id, answers: { email: 'not an email' } });
    expectProblem(res, 422, 'validation_error', 'invalid_answers');
    const list = await api.call('get', `/v1/submissions?form_id=${form.id}&limit=100`);
    expect(list.body.data.every((submission: { answers: { email?: string } }) => submission.answers.email !== 'not an email')).toBe(true);
  });

  it('when the resume token is wrong, another submission’s, or past its window, then 403 invalid_resume_token and nothing changes', async () => {
    const first = await publicPost(keys.live.value, { form_id: form.id, answers: contact, status: 'partial' });
    const second = await publicPost(keys.live.value, { form_id: form.id, answers: contact, status: 'partial' });
    const wrong = `srt_${'A'.repeat(40)}`;
    for (const resume_token of [wrong, second.body.resume_token]) {
      const res = await publicPatch(keys.live.value, first.body.id, { resume_token, answers: { company_size: '1_10' } });
      expectProblem(res, 403, 'permission_error', 'invalid_resume_token');
    }
    clock.set('2026-06-03T09:00:00.000Z');
    const late = await publicPatch(keys.live.value, first.body.id, { resume_token: first.body.resume_token, answers: {} });
    expectProblem(late, 403, 'permission_error', 'invalid_resume_token');
    clock.set('2026-05-04T09:00:00.000Z');
    expect((await api.call('get', `/v1/submissions/${first.body.id}`)).body.answers).toEqual(contact);
  });

  it('when the resume token is missing or malformed, then 400; when the submission is unknown, then 404', async () => {
    const first = await publicPost(keys.live.value, { form_id: form.id, answers: contact, status: 'partial' });
    expectProblem(await publicPatch(keys.live.value, first.body.id, { answers: {} }), 400, 'validation_error', 'invalid_parameters');
    expectProblem(await publicPatch(keys.live.value, first.body.id, { resume_token: 'x' }), 400, 'validation_error', 'invalid_parameters');
    const unknown = await publicPatch(keys.live.value, absentId('sub'), { resume_token: first.body.resume_token });
    expectProblem(unknown, 404, 'not_found', 'resource_not_found');
  });

  it('when a submission made with a secret key is patched publicly, then 403 invalid_resume_token: no token opens it', async () => {
    const made = await api.call('post', '/v1/submissions').send({ form_id: form.id, answers: contact, status: 'partial' });
    const res = await publicPatch(keys.live.value, made.body.id, { resume_token: `srt_${'B'.repeat(40)}`, answers: {} });
    expectProblem(res, 403, 'permission_error', 'invalid_resume_token');
  });

  it('when a completed submission is patched with its token, then 409 submission_completed', async () => {
    const started = await publicPost(keys.live.value, { form_id: form.id, answers: contact, status: 'partial' });
    const { id, resume_token } = started.body;
    expect((await publicPatch(keys.live.value, id, { resume_token, answers: rest, status: 'completed' })).status).toBe(200);
    expectProblem(await publicPatch(keys.live.value, id, { resume_token, answers: {} }), 409, 'conflict_error', 'submission_completed');
  });

  it('when a completed submission gets any PATCH with its token, its token alone included, then 409 and it stays as it was', async () => {
    const started = await publicPost(keys.live.value, { form_id: form.id, answers: contact, status: 'partial' });
    const { id, resume_token } = started.body;
    expect((await publicPatch(keys.live.value, id, { resume_token, answers: rest, status: 'completed' })).status).toBe(200);
    const before = (await api.call('get', `/v1/submissions/${id}`)).body;
    clock.set('2026-05-04T09:05:00.000Z');
    try {
      for (const change of [{}, { status: 'partial' }, { status: 'completed' }, { hidden: {} }, { answers: { notes: 'Late' } }]) {
        const res = await publicPatch(keys.live.value, id, { resume_token, ...change });
        expectProblem(res, 409, 'conflict_error', 'submission_completed');
        expect(res.body.message).toContain(id);
      }
    } finally {
      clock.set('2026-05-04T09:00:00.000Z');
    }
    const after = await api.call('get', `/v1/submissions/${id}`);
    expect(after.body).toEqual({ ...before, request_id: after.body.request_id });
    expect(after.body.updated_at).toBe(before.updated_at);
  });

  it('when a completed submission is patched with its token after its resume window ended, then still 409; a wrong token 403', async () => {
    const started = await publicPost(keys.live.value, { form_id: form.id, answers: contact, status: 'partial' });
    const { id, resume_token } = started.body;
    expect((await publicPatch(keys.live.value, id, { resume_token, answers: rest, status: 'completed' })).status).toBe(200);
    clock.set('2026-07-04T09:00:00.000Z');
    try {
      expectProblem(await publicPatch(keys.live.value, id, { resume_token }), 409, 'conflict_error', 'submission_completed');
      const wrong = await publicPatch(keys.live.value, id, { resume_token: `srt_${'C'.repeat(40)}` });
      expectProblem(wrong, 403, 'permission_error', 'invalid_resume_token');
    } finally {
      clock.set('2026-05-04T09:00:00.000Z');
    }
  });

  it('when a partial submission gets a PATCH with its token alone, then 200 and it stays partial', async () => {
    const started = await publicPost(keys.live.value, { form_id: form.id, answers: contact, status: 'partial' });
    const { id, resume_token } = started.body;
    const res = await publicPatch(keys.live.value, id, { resume_token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'partial', resume_expires_at: started.body.resume_expires_at });
    expect((await api.call('get', `/v1/submissions/${id}`)).body).toMatchObject({ status: 'partial', answers: contact });
  });

  it('when a key attached to one form submits to another, then 404 and nothing is stored', async () => {
    const other = await createForm(api, demoForm({ name: 'Other public form' }));
    const attached = await createPublishableKey(api, { environment: 'live', attachment: { type: 'form', form_id: form.id } });
    expectProblem(
      await publicPost(attached.value, { form_id: other.id, answers: contact, status: 'partial' }),
      404,
      'not_found',
      'resource_not_found',
    );
    expect((await api.call('get', `/v1/submissions?form_id=${other.id}`)).body.data).toEqual([]);
    const started = await publicPost(keys.live.value, { form_id: other.id, answers: contact, status: 'partial' });
    const res = await publicPatch(attached.value, started.body.id, { resume_token: started.body.resume_token, answers: {} });
    expectProblem(res, 404, 'not_found', 'resource_not_found');
  });

  it('when a create is retried with its Idempotency-Key, then the first public answer is replayed, token included', async () => {
    const body = { form_id: form.id, answers: contact, status: 'partial' };
    const first = await publicPost(keys.live.value, body).set('Idempotency-Key', 'page-load-1');
    const replay = await publicPost(keys.live.value, body).set('Idempotency-Key', 'page-load-1');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual({ ...first.body, request_id: replay.body.request_id });
  });

  it('when the body carries a score or an unknown member, then 400', async () => {
    const res = await publicPost(keys.live.value, { form_id: form.id, answers: contact, score: 100 });
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
  });
});
