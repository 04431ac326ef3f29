/**
 * PATCH /v1/submissions/{id}: a partial submission receives more answers and is completed, checked against the
 * form version it started on, counted once in analytics, and announced once as submission.completed.
 *
 * The demo form (see submissions-support.ts): contact (full_name*, email*) → company (company_size*, has_budget*)
 * → budget (budget_usd*, only when has_budget) → finish (notes, gdpr*). Grades A ≥ 50, B ≥ 20, C ≥ 0.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createForm, createIntegration, type Form, logsOf, type Submission, submit } from '../support/factories.js';
import { generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';
import { testWebhookUrls } from './integrations-support.js';
import { demoForm, testClock } from './submissions-support.js';

const clock = testClock('2026-05-04T09:00:00.000Z');
const api = useWatchedApi(() => ({ now: clock.now, rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));
let form: Form;

const contact = { full_name: 'Tom Okafor', email: 'tom@brightdesk.example' };
const startPartial = (answers: Record<string, unknown> = contact, formId = form.id, key?: string) =>
  submit(api, { form_id: formId, answers: answers as Submission['answers'], status: 'partial' }, key);
const patch = (id: string, body: unknown, key?: string) => api.call('patch', `/v1/submissions/${id}`, key).send(body as object);

beforeAll(async () => {
  form = await createForm(api, demoForm());
});

describe('PATCH /v1/submissions/{id}: more answers', () => {
  it('when answers are added, then they are merged over the stored ones, the path grows, it is rescored and updated_at moves', async () => {
    const started = await startPartial();
    expect(started).toMatchObject({ visited_steps: ['contact'], score: 0 });
    clock.set('2026-05-04T09:05:00.000Z');
    const res = await patch(started.id, { answers: { company_size: '201_plus', has_budget: false } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: started.id,
      status: 'partial',
      answers: { ...contact, company_size: '201_plus', has_budget: false },
      visited_steps: ['contact', 'company'],
      score: 25,
      grade: 'B',
      form_version: 1,
      created_at: started.created_at,
      scored_at: '2026-05-04T09:05:00.000Z',
      updated_at: '2026-05-04T09:05:00.000Z',
    });
    expect((await api.call('get', `/v1/submissions/${started.id}`)).body).toMatchObject({
      answers: res.body.answers,
      updated_at: res.body.updated_at,
    });
    clock.set('2026-05-04T09:00:00.000Z');
  });

  it('when an answer is given as null, then it is cleared, and a changed answer replaces the stored one', async () => {
    const started = await startPartial({ ...contact, company_size: '1_10', has_budget: false });
    const res = await patch(started.id, { answers: { has_budget: null, company_size: '11_200' } });
    expect(res.status).toBe(200);
    expect(res.body.answers).toEqual({ ...contact, company_size: '11_200' });
  });

  it('when the submission is completed with every required answer, then 200 with status completed and the final score', async () => {
    const started = await startPartial();
    const res = await patch(started.id, {
      answers: { company_size: '1_10', has_budget: true, budget_usd: 60_000, gdpr: true },
      status: 'completed',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'completed',
      visited_steps: ['contact', 'company', 'budget', 'finish'],
      score: 40,
      grade: 'B',
      score_breakdown: [{ source: 'rule', rule_id: 'big_budget', points: 40 }],
    });
  });

  it('when completing without required answers, then 422 invalid_answers names each missing field and nothing changes', async () => {
    const started = await startPartial({ ...contact, company_size: '1_10', has_budget: false });
    const res = await patch(started.id, { status: 'completed' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('invalid_answers');
    expect(issuesOf(res)).toEqual(['body /answers/gdpr required']);
    expect((await api.call('get', `/v1/submissions/${started.id}`)).body).toMatchObject({
      status: 'partial',
      updated_at: started.updated_at,
    });
  });

  it('when the body is empty, has an unknown member or a wrong status, then 400 invalid_parameters', async () => {
    const started = await startPartial();
    for (const body of [{}, { context: {} }, { status: 'done' }, { answers: { email: { nested: true } } }]) {
      const res = await patch(started.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('invalid_parameters');
    }
  });
});

describe('PATCH /v1/submissions/{id}: logic over the merged path', () => {
  it('when an answer lies on a step the merged answers skip, then 422 not_visited', async () => {
    const started = await startPartial({ ...contact, company_size: '1_10', has_budget: false });
    const res = await patch(started.id, { answers: { budget_usd: 80_000 } });
    expect(res.status).toBe(422);
    expect(issuesOf(res)).toEqual(['body /answers/budget_usd not_visited']);
  });

  it('when a new answer opens the step, then the same answer is accepted on it', async () => {
    const started = await startPartial({ ...contact, company_size: '1_10', has_budget: false });
    const res = await patch(started.id, { answers: { has_budget: true, budget_usd: 80_000 } });
    expect(res.status).toBe(200);
    expect(res.body.visited_steps).toEqual(['contact', 'company', 'budget']);
  });

  it('when a changed answer makes the logic skip a step holding a stored answer, then 422 until that answer is cleared', async () => {
    const started = await startPartial({ ...contact, company_size: '1_10', has_budget: true, budget_usd: 80_000 });
    const refused = await patch(started.id, { answers: { has_budget: false } });
    expect(refused.status).toBe(422);
    expect(issuesOf(refused)).toEqual(['body /answers/budget_usd not_visited']);
    const cleared = await patch(started.id, { answers: { has_budget: false, budget_usd: null, gdpr: true }, status: 'completed' });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ visited_steps: ['contact', 'company', 'finish'], answers: { has_budget: false } });
    expect(cleared.body.answers).not.toHaveProperty('budget_usd');
  });
});

describe('PATCH /v1/submissions/{id}: the version it started on', () => {
  it('when the form changed after the submission started, then the answers are checked and scored against the version it started on', async () => {
    const own = await createForm(api, demoForm());
    const started = await startPartial(contact, own.id);
    // Version 2: company_size loses the option 201_plus, and a new required field joins the contact step.
    const v1 = (await api.call('get', `/v1/forms/${own.id}`)).body as Form;
    const steps = structuredClone(v1.steps) as Array<{ fields: Array<Record<string, unknown>> }>;
    steps[0]!.fields.push({ type: 'short_text', ref: 'job_title', label: 'Job title', required: true });
    const companySize = steps[1]!.fields.find((field) => field.ref === 'company_size') as { options: Array<{ value: string }> };
    companySize.options = companySize.options.filter((option) => option.value !== '201_plus');
    expect((await api.call('patch', `/v1/forms/${own.id}`).send({ steps })).body.version).toBe(2);

    const res = await patch(started.id, { answers: { company_size: '201_plus', has_budget: false, gdpr: true }, status: 'completed' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', form_version: 1, score: 25 });

    const other = await startPartial(contact, own.id);
    expect(other.form_version).toBe(2);
    const refused = await patch(other.id, { answers: { company_size: '201_plus' } });
    expect(refused.status).toBe(422);
    expect(issuesOf(refused)).toEqual(['body /answers/company_size unknown_option']);
  });

  it('when a rescored partial submission is resumed, then it is still checked and scored with the version it started on', async () => {
    const own = await createForm(api, demoForm());
    const started = await startPartial({ ...contact, company_size: '201_plus' }, own.id);
    expect((await api.call('patch', `/v1/forms/${own.id}`).send({ name: 'Demo request v2' })).body.version).toBe(2);
    expect((await api.call('post', `/v1/submissions/${started.id}/rescore`)).body.form_version).toBe(2);
    const res = await patch(started.id, { answers: { has_budget: false } });
    expect(res.status).toBe(200);
    expect(res.body.form_version).toBe(1);
  });
  it('when the version it started on is no longer kept, then 409 form_version_unavailable and nothing changes', async () => {
    const own = await createForm(api, demoForm());
    const started = await startPartial(contact, own.id);
    expect((await api.call('patch', `/v1/forms/${own.id}`).send({ name: 'Demo request v2' })).body.version).toBe(2);
    // What the retention of the latest 100 versions does to version 1 after 100 more updates.
    await api.rows('DELETE FROM form_versions WHERE form_id = ? AND version = 1', own.id);
    const res = await patch(started.id, { answers: { has_budget: false } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ type: 'conflict_error', code: 'form_version_unavailable' });
    expect((await api.call('get', `/v1/submissions/${started.id}`)).body.answers).toEqual(contact);
  });
});

describe('PATCH /v1/submissions/{id}: who may resume what', () => {
  it('when the submission is completed (created so, or completed by PATCH), then 409 submission_completed and nothing changes', async () => {
    const completed = await submit(api, { form_id: form.id, answers: { ...contact, company_size: '1_10', has_budget: false, gdpr: true } });
    const res = await patch(completed.id, { answers: { notes: 'late' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ type: 'conflict_error', code: 'submission_completed' });
    expect(res.body.message).toContain(completed.id);

    const started = await startPartial({ ...contact, company_size: '1_10', has_budget: false, gdpr: true });
    expect((await patch(started.id, { status: 'completed' })).status).toBe(200);
    const again = await patch(started.id, { status: 'completed' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('submission_completed');
    expect((await api.call('get', `/v1/submissions/${completed.id}`)).body.answers).not.toHaveProperty('notes');
  });

  it('when another workspace, or the other environment, patches the submission, then 404 as if it did not exist', async () => {
    const started = await startPartial();
    const other = await api.otherWorkspace();
    const foreign = await patch(started.id, { answers: { has_budget: false } }, other.live_admin_key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('resource_not_found');
    const testKey = await patch(started.id, { answers: { has_budget: false } }, api.workspace.test_admin_key);
    expect(testKey.status).toBe(404);

    const sandboxed = await startPartial(contact, form.id, api.workspace.test_admin_key);
    expect(sandboxed.test).toBe(true);
    expect((await patch(sandboxed.id, { answers: { has_budget: false } })).status).toBe(404);
    const own = await patch(sandboxed.id, { answers: { has_budget: false } }, api.workspace.test_admin_key);
    expect(own.status).toBe(200);
    expect(own.body.test).toBe(true);
  });

  it('when a read-only key patches, then 403 insufficient_scope', async () => {
    const started = await startPartial();
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const res = await patch(started.id, { answers: { has_budget: false } }, key.secret);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });
});

describe('PATCH /v1/submissions/{id}: analytics and events', () => {
  it('when a partial submission is completed, then analytics show 1 start, 1 completion and no drop-off', async () => {
    const own = await createForm(api, demoForm());
    clock.set('2026-05-06T10:00:00.000Z');
    const started = await api
      .call('post', '/v1/submissions')
      .send({ form_id: own.id, answers: contact, status: 'partial', context: { utm: { source: 'newsletter' } } });
    const figures = async () => (await api.call('get', `/v1/analytics?form_id=${own.id}&from=2026-05-06&to=2026-05-07`)).body;
    const before = await figures();
    expect(before.submissions).toEqual({ started: 1, completed: 0, completion_rate: 0 });
    expect(before.steps[0]).toMatchObject({ step_id: 'contact', reached: 1, dropped_off: 1 });

    // Completed the next day: still counted on the day it started.
    clock.set('2026-05-07T08:00:00.000Z');
    const res = await patch(started.body.id, { answers: { company_size: '201_plus', has_budget: false, gdpr: true }, status: 'completed' });
    expect(res.status).toBe(200);
    const after = await figures();
    expect(after.submissions).toEqual({ started: 1, completed: 1, completion_rate: 1 });
    expect(after.steps.map((step: { reached: number; dropped_off: number }) => [step.reached, step.dropped_off])).toEqual([
      [1, 0],
      [1, 0],
      [0, 0],
      [1, 0],
    ]);
    expect(after.daily).toEqual([
      { date: '2026-05-06', started: 1, completed: 1 },
      { date: '2026-05-07', started: 0, completed: 0 },
    ]);
    expect(after.score).toMatchObject({ average: 25, grades: expect.arrayContaining([{ label: 'B', count: 1 }]) });
    expect(after.utm_sources.top).toEqual([{ source: 'newsletter', started: 1, completed: 1 }]);
    clock.set('2026-05-04T09:00:00.000Z');
  });

  it('when a partial submission is completed, then submission.completed goes out once through the outbox; a partial PATCH sends nothing', async () => {
    const own = await createForm(api, demoForm());
    const finished = await createIntegration(api, { events: ['submission.completed'], form_id: own.id });
    const everything = await createIntegration(api, { events: ['submission.created', 'submission.completed'], form_id: own.id });
    const started = await startPartial(contact, own.id);
    expect((await patch(started.id, { answers: { company_size: '1_10' } })).status).toBe(200);
    expect(await logsOf(api, finished.id)).toEqual([]);

    const body = { answers: { has_budget: false, gdpr: true }, status: 'completed' };
    const completed = await patch(started.id, body).set('Idempotency-Key', 'complete-once');
    expect(completed.status).toBe(200);
    const replay = await patch(started.id, body).set('Idempotency-Key', 'complete-once');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual({ ...completed.body, request_id: replay.body.request_id });
    expect((await patch(started.id, body)).status).toBe(409);

    const logs = await logsOf(api, finished.id);
    expect(logs.map((log) => log.event_type)).toEqual(['submission.completed']);
    expect((await logsOf(api, everything.id)).map((log) => log.event_type).sort()).toEqual(['submission.completed', 'submission.created']);
    const [event] = await api.rows('SELECT body FROM events WHERE id = ?', logs[0]!.event_id);
    const stored = typeof event!.body === 'string' ? JSON.parse(event!.body) : event!.body;
    expect(stored).toMatchObject({ type: 'submission.completed' });
    expect(stored.data.object).toMatchObject({ id: started.id, status: 'completed', updated_at: completed.body.updated_at });
  });

  it('when a submission is created completed, then it gets submission.completed too, once', async () => {
    const own = await createForm(api, demoForm());
    const finished = await createIntegration(api, { events: ['submission.completed'], form_id: own.id });
    await submit(api, { form_id: own.id, answers: { ...contact, company_size: '1_10', has_budget: false, gdpr: true } });
    expect((await logsOf(api, finished.id)).map((log) => log.event_type)).toEqual(['submission.completed']);
  });

  it('when the same Idempotency-Key comes with another body, then 409 idempotency_conflict', async () => {
    const started = await startPartial();
    expect((await patch(started.id, { answers: { company_size: '1_10' } }).set('Idempotency-Key', 'k-1')).status).toBe(200);
    const res = await patch(started.id, { answers: { company_size: '11_200' } }).set('Idempotency-Key', 'k-1');
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_conflict');
  });
});

describe('PATCH /v1/submissions/{id}: erasure', () => {
  it('when an email address arrives by PATCH, then erasing that address finds and deletes the submission', async () => {
    const started = await startPartial({ full_name: 'Late Address' });
    expect((await patch(started.id, { answers: { email: 'Late.Address@Example.com' } })).status).toBe(200);
    const res = await api.call('post', '/v1/submissions/erase').send({ email: 'late.address@example.com' });
    expect(res.status).toBe(200);
    expect((await api.call('get', `/v1/submissions/${started.id}`)).status).toBe(404);
  });
});

describe('PATCH /v1/submissions/{id}: search', () => {
  it('when answers arrive, change or are cleared by PATCH, then q finds the submission by what it holds now', async () => {
    const started = await startPartial({ full_name: 'Quentin Searchable' });
    const found = async (q: string) =>
      ((await api.call('get', `/v1/submissions?q=${encodeURIComponent(q)}&form_id=${form.id}`)).body.data as Submission[]).map(
        (submission) => submission.id,
      );
    expect(await found('quentin')).toContain(started.id);
    expect((await patch(started.id, { answers: { email: 'q.late@zephyrcorp.example' } })).status).toBe(200);
    expect(await found('zephyrcorp')).toContain(started.id);
    expect((await patch(started.id, { answers: { full_name: 'Renamed Person' } })).status).toBe(200);
    expect(await found('quentin')).not.toContain(started.id);
    expect(await found('renamed person')).toContain(started.id);
  });
});

describe('PATCH /v1/submissions/{id}: concurrency', () => {
  it('when PATCHes of one submission race, then every answer of every one of them is kept', async () => {
    for (let round = 0; round < 3; round++) {
      const started = await startPartial();
      const results = await Promise.all([
        patch(started.id, { answers: { company_size: '11_200' } }),
        patch(started.id, { answers: { has_budget: true } }),
        patch(started.id, { answers: { budget_usd: 1000 } }),
        patch(started.id, { answers: { notes: 'call me' } }),
      ]);
      // budget_usd and notes lie on steps only reachable once has_budget is known: they succeed only after it.
      expect(results.map((res) => res.status).every((status) => status === 200 || status === 422)).toBe(true);
      const stored = (await api.call('get', `/v1/submissions/${started.id}`)).body as Submission;
      expect(stored.answers).toMatchObject({ ...contact, company_size: '11_200', has_budget: true });
      const accepted = results.filter((res) => res.status === 200).length;
      expect(Object.keys(stored.answers)).toHaveLength(2 + accepted);
    }
  });

  it('when two completions race, then one completes and the other gets 409 submission_completed', async () => {
    const started = await startPartial({ ...contact, company_size: '1_10', has_budget: false, gdpr: true });
    const statuses = (await Promise.all([patch(started.id, { status: 'completed' }), patch(started.id, { status: 'completed' })]))
      .map((res) => res.status)
      .sort();
    expect(statuses).toEqual([200, 409]);
  });
});
