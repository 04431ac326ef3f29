/**
 * GET /v1/analytics on a small data set whose figures are worked out by hand:
 *
 * 2026-03-01  A completed  all four steps             score 65 (A)
 *             B completed  contact, company, finish   score 10 (C)
 *             C partial    contact                    dropped off at contact
 * 2026-03-02  D partial    contact, company           dropped off at company
 *             E completed  all four steps             score 0 (C)
 * 2026-03-03  nothing
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createForm, type Form, type SubmissionRequest, submit } from '../support/factories.js';
import { useWatchedApi } from '../support/http-checks.js';
import { anaAnswers, budgetAnswers, demoForm, noBudgetAnswers, testClock } from './submissions-support.js';

const clock = testClock('2026-03-01T08:00:00.000Z');
const api = useWatchedApi({
  now: clock.now,
  rateLimits: { perKeyPerSecond: 100_000, perWorkspacePerMinute: 10_000_000, failedAuthPerAddressPerMinute: 10_000 },
});
let form: Form;
const ids: Record<string, string> = {};

beforeAll(async () => {
  form = await createForm(api, demoForm());
  const at = async (time: string, name: string, body: Omit<SubmissionRequest, 'form_id'>) => {
    clock.set(time);
    ids[name] = (await submit(api, { form_id: form.id, ...body })).id;
  };
  await at('2026-03-01T09:00:00.000Z', 'A', { answers: anaAnswers() });
  await at('2026-03-01T12:00:00.000Z', 'B', { answers: noBudgetAnswers() });
  await at('2026-03-01T23:59:59.999Z', 'C', { answers: { full_name: 'C', email: 'c@c.example' }, status: 'partial' });
  await at('2026-03-02T00:00:00.000Z', 'D', {
    answers: { full_name: 'D', email: 'd@d.example', company_size: '1_10', has_budget: true },
    status: 'partial',
  });
  await at('2026-03-02T10:00:00.000Z', 'E', { answers: budgetAnswers(10_000) });
  clock.set('2026-03-10T15:00:00.000Z');
});

const analytics = (query: string, key?: string) => api.call('get', `/v1/analytics?form_id=${form.id}&${query}`, key);

describe('GET /v1/analytics', () => {
  it('when the range covers the data set, then started, completed, steps, score, grades and the daily series are as worked out', async () => {
    const res = await analytics('from=2026-03-01&to=2026-03-03');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'analytics',
      form_id: form.id,
      from: '2026-03-01',
      to: '2026-03-03',
      test: false,
      submissions: { started: 5, completed: 3, completion_rate: 0.6 },
      spam: 0,
      steps: [
        { step_id: 'contact', title: 'Who are you?', reached: 5, dropped_off: 1, drop_off_rate: 0.2 },
        { step_id: 'company', title: 'About your company', reached: 4, dropped_off: 1, drop_off_rate: 0.25 },
        { step_id: 'budget', title: 'Budget', reached: 2, dropped_off: 0, drop_off_rate: 0 },
        { step_id: 'finish', title: 'Anything else?', reached: 3, dropped_off: 0, drop_off_rate: 0 },
      ],
      score: {
        average: 25,
        grades: [
          { label: 'A', count: 1 },
          { label: 'B', count: 0 },
          { label: 'C', count: 2 },
          { label: null, count: 0 },
        ],
      },
      utm_sources: { top: [{ source: null, started: 5, completed: 3 }], other: { sources: 0, started: 0, completed: 0 } },
      daily: [
        { date: '2026-03-01', started: 3, completed: 2 },
        { date: '2026-03-02', started: 2, completed: 1 },
        { date: '2026-03-03', started: 0, completed: 0 },
      ],
      request_id: res.headers['x-request-id'],
    });
  });

  it('when the range is one day, then only that UTC day counts (midnight belongs to the new day)', async () => {
    const res = await analytics('from=2026-03-02&to=2026-03-02');
    expect(res.body.submissions).toEqual({ started: 2, completed: 1, completion_rate: 0.5 });
    expect(res.body.score.average).toBe(0);
    expect(res.body.steps.map((step: { dropped_off: number }) => step.dropped_off)).toEqual([0, 1, 0, 0]);
  });

  it('when nothing happened in the range, then every figure is zero and the average is null', async () => {
    const res = await analytics('from=2026-02-01&to=2026-02-28');
    expect(res.body.submissions).toEqual({ started: 0, completed: 0, completion_rate: 0 });
    expect(res.body.score.average).toBeNull();
    expect(res.body.daily).toHaveLength(28);
  });

  it('when from and to are omitted, then the range is the 30 days up to today (UTC)', async () => {
    const res = await api.call('get', `/v1/analytics?form_id=${form.id}`);
    expect(res.body).toMatchObject({ from: '2026-02-09', to: '2026-03-10', submissions: { started: 5 } });
    expect(res.body.daily).toHaveLength(30);
    const onlyTo = await analytics('to=2026-03-01');
    expect(onlyTo.body).toMatchObject({ from: '2026-01-31', to: '2026-03-01', submissions: { started: 3 } });
  });

  it('when a partial submission is deleted, then the drop-off count of its last step goes back down', async () => {
    const own = await createForm(api, demoForm());
    clock.set('2026-03-10T10:00:00.000Z');
    const steps = async () =>
      (await api.call('get', `/v1/analytics?form_id=${own.id}&from=2026-03-10&to=2026-03-10`)).body.steps as Array<{
        step_id: string;
        reached: number;
        dropped_off: number;
      }>;
    const completed = await submit(api, { form_id: own.id, answers: anaAnswers() });
    const partial = await submit(api, {
      form_id: own.id,
      answers: { full_name: 'P', email: 'p@p.example', company_size: '1_10', has_budget: true },
      status: 'partial',
    });
    expect((await steps()).map((step) => [step.step_id, step.reached, step.dropped_off])).toEqual([
      ['contact', 2, 0],
      ['company', 2, 1],
      ['budget', 1, 0],
      ['finish', 1, 0],
    ]);

    expect((await api.call('delete', `/v1/submissions/${partial.id}`)).status).toBe(200);
    expect((await steps()).map((step) => [step.step_id, step.reached, step.dropped_off])).toEqual([
      ['contact', 1, 0],
      ['company', 1, 0],
      ['budget', 1, 0],
      ['finish', 1, 0],
    ]);
    expect((await api.call('delete', `/v1/submissions/${completed.id}`)).status).toBe(200);
    expect((await steps()).map((step) => [step.reached, step.dropped_off])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
  });

  it('when a submission is deleted or rescored, then the figures follow at once', async () => {
    const own = await createForm(api, demoForm());
    clock.set('2026-03-10T09:00:00.000Z');
    const kept = await submit(api, { form_id: own.id, answers: anaAnswers() });
    const dropped = await submit(api, { form_id: own.id, answers: noBudgetAnswers() });
    const figures = async () => (await api.call('get', `/v1/analytics?form_id=${own.id}&from=2026-03-10&to=2026-03-10`)).body;
    expect((await figures()).score).toEqual({
      average: 37.5,
      grades: [
        { label: 'A', count: 1 },
        { label: 'B', count: 0 },
        { label: 'C', count: 1 },
        { label: null, count: 0 },
      ],
    });

    expect((await api.call('delete', `/v1/submissions/${dropped.id}`)).status).toBe(200);
    const afterDelete = await figures();
    expect(afterDelete.submissions).toEqual({ started: 1, completed: 1, completion_rate: 1 });
    expect(afterDelete.steps.map((step: { reached: number }) => step.reached)).toEqual([1, 1, 1, 1]);

    // New grades: the old label A stays listed after the current ones while submissions still carry it.
    const scoring = {
      rules: [],
      grades: [
        { label: 'Warm', min_score: 10 },
        { label: 'Hot', min_score: 50 },
      ],
    };
    expect((await api.call('patch', `/v1/forms/${own.id}`).send({ scoring })).status).toBe(200);
    expect((await figures()).score.grades).toEqual([
      { label: 'Hot', count: 0 },
      { label: 'Warm', count: 0 },
      { label: 'A', count: 1 },
      { label: null, count: 0 },
    ]);
    expect((await api.call('post', `/v1/submissions/${kept.id}/rescore`)).body.score).toBe(25);
    expect((await figures()).score).toEqual({
      average: 25,
      grades: [
        { label: 'Hot', count: 0 },
        { label: 'Warm', count: 1 },
        { label: null, count: 0 },
      ],
    });
    clock.set('2026-03-10T15:00:00.000Z');
  });

  it('when from is after to, then 422 invalid_value pointing at from', async () => {
    const res = await analytics('from=2026-03-05&to=2026-03-01');
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      type: 'validation_error',
      code: 'invalid_value',
      details: { errors: [{ location: 'query', pointer: '/from' }] },
    });
  });

  it('when the range has 367 days, then 422 invalid_value; 366 days are accepted', async () => {
    const tooLong = await analytics('from=2025-03-01&to=2026-03-02');
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.code).toBe('invalid_value');
    const longest = await analytics('from=2025-03-02&to=2026-03-02');
    expect(longest.status).toBe(200);
    expect(longest.body.daily).toHaveLength(366);
    expect(longest.body.submissions.started).toBe(5);
  });

  it('when form_id is missing or a date is not a calendar date, then 400 invalid_parameters', async () => {
    const missing = await api.call('get', '/v1/analytics');
    expect(missing.status).toBe(400);
    expect(missing.body.details.errors[0]).toMatchObject({ location: 'query', pointer: '/form_id', code: 'required' });
    const badDate = await analytics('from=2026-02-30');
    expect(badDate.status).toBe(400);
    expect(badDate.body.details.errors[0]).toMatchObject({ location: 'query', pointer: '/from' });
  });

  it('when the form does not exist, then 404 resource_not_found', async () => {
    const res = await api.call('get', '/v1/analytics?form_id=form_000000000000000000000000');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('resource_not_found');
  });

  it('when a key is attached to another form, then 403 form_not_attached', async () => {
    const other = await createForm(api, demoForm());
    const key = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'form', form_id: other.id } });
    const res = await analytics('', key.secret);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('form_not_attached');
  });

  it('when a test key asks for a live form, then it gets the sandbox figures (test: true), not the live ones', async () => {
    const res = await analytics('from=2026-03-01&to=2026-03-03', api.workspace.test_admin_key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ test: true, submissions: { started: 0, completed: 0 }, score: { average: null } });
  });
});
