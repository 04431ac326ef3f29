/**
 * The test sandbox: live and test submissions never meet in a list, a read, a change, analytics or a reset;
 * and a form's deletion takes its submissions and aggregates with it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createForm, submit } from '../support/factories.js';
import { useWatchedApi } from '../support/http-checks.js';
import { storedRows } from '../support/stores.js';
import { moveForm } from '../support/transfers.js';
import { anaAnswers, budgetAnswers, demoForm, noBudgetAnswers, recordingEvents } from './submissions-support.js';

const highLimits = { perKeyPerSecond: 100_000, perWorkspacePerMinute: 10_000_000, failedAuthPerAddressPerMinute: 10_000 };
const events = recordingEvents();
const api = useWatchedApi({ rateLimits: highLimits, events: events.publisher });
let live: string;
let test: string;

beforeAll(async () => {
  live = api.workspace.live_admin_key;
  test = api.workspace.test_admin_key;
});

const idsIn = async (path: string, key: string): Promise<string[]> => {
  const res = await api.call('get', path, key);
  expect(res.status).toBe(200);
  return res.body.data.map((item: { id: string }) => item.id);
};
const startedIn = async (formId: string, key: string): Promise<number> => {
  const res = await api.call('get', `/v1/analytics?form_id=${formId}`, key);
  expect(res.status).toBe(200);
  return res.body.submissions.started;
};
/** Aggregate rows of a form in one environment, read straight from the database once pending changes are folded in. */
const aggregateRows = async (formId: string, environment: 'live' | 'test'): Promise<number> => {
  await api.store.foldAggregates?.();
  let sum = 0;
  for (const table of ['submission_days', 'submission_step_days', 'submission_grade_days']) {
    const [row] = await storedRows(
      api.store,
      `SELECT COUNT(*) AS n FROM ${table} WHERE form_id = ? AND environment = ?`,
      formId,
      environment,
    );
    sum += row!.n as number;
  }
  return sum;
};

describe('live and test submissions', () => {
  it('when a test key submits to a live form, then the submission is test: true and only test keys see it', async () => {
    const form = await createForm(api, demoForm(), live);
    events.published.length = 0;
    const sandboxed = await submit(api, { form_id: form.id, answers: anaAnswers() }, test);
    expect(sandboxed).toMatchObject({ test: true, form_id: form.id, score: 65 });
    expect(events.published).toMatchObject([
      { type: 'submission.created', environment: 'test', data: { object: { id: sandboxed.id, test: true } } },
      { type: 'submission.completed', environment: 'test', data: { object: { id: sandboxed.id, test: true } } },
    ]);

    expect(await idsIn('/v1/submissions?limit=100', live)).not.toContain(sandboxed.id);
    expect(await idsIn(`/v1/submissions?form_id=${form.id}`, live)).toEqual([]);
    expect(await idsIn(`/v1/submissions?form_id=${form.id}`, test)).toEqual([sandboxed.id]);
    expect((await api.call('get', `/v1/submissions/${sandboxed.id}`, live)).status).toBe(404);
    expect((await api.call('get', `/v1/submissions/${sandboxed.id}`, test)).status).toBe(200);
    expect(await startedIn(form.id, live)).toBe(0);
    expect(await startedIn(form.id, test)).toBe(1);
  });

  it('when a live submission exists, then a test key can neither list, read, rescore nor delete it', async () => {
    const form = await createForm(api, demoForm(), live);
    const real = await submit(api, { form_id: form.id, answers: anaAnswers() }, live);
    expect(await idsIn(`/v1/submissions?form_id=${form.id}`, test)).toEqual([]);
    expect(await idsIn('/v1/submissions?limit=100', test)).not.toContain(real.id);
    for (const [method, path] of [
      ['get', ''],
      ['post', '/rescore'],
      ['delete', ''],
    ] as const) {
      const res = await api.call(method, `/v1/submissions/${real.id}${path}`, test);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe('resource_not_found');
    }
    expect(await startedIn(form.id, test)).toBe(0);
    expect(await startedIn(form.id, live)).toBe(1);
    expect((await api.call('get', `/v1/submissions/${real.id}`, live)).body.score).toBe(65);
  });

  it('when a test submission exists, then a live key can neither rescore nor delete it', async () => {
    const form = await createForm(api, demoForm(), live);
    const sandboxed = await submit(api, { form_id: form.id, answers: anaAnswers() }, test);
    expect((await api.call('post', `/v1/submissions/${sandboxed.id}/rescore`, live)).status).toBe(404);
    expect((await api.call('delete', `/v1/submissions/${sandboxed.id}`, live)).status).toBe(404);
    expect((await api.call('get', `/v1/submissions/${sandboxed.id}`, test)).status).toBe(200);
  });

  it('when a form exists only in test mode, then live keys cannot submit to it or read its analytics (404)', async () => {
    const sandboxForm = await createForm(api, demoForm(), test);
    expect(sandboxForm.test).toBe(true);
    const res = await api.call('post', '/v1/submissions', live).send({ form_id: sandboxForm.id, answers: anaAnswers() });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('resource_not_found');
    expect((await api.call('get', `/v1/analytics?form_id=${sandboxForm.id}`, live)).status).toBe(404);
    expect((await submit(api, { form_id: sandboxForm.id, answers: anaAnswers() }, test)).test).toBe(true);
  });
});

describe('DELETE /v1/test_data', () => {
  it('when test data is reset, then test submissions and their aggregates are gone and every live one stays', async () => {
    const liveForm = await createForm(api, demoForm(), live);
    const sandboxForm = await createForm(api, demoForm(), test);
    const liveIds = [
      (await submit(api, { form_id: liveForm.id, answers: anaAnswers() }, live)).id,
      (await submit(api, { form_id: liveForm.id, answers: noBudgetAnswers() }, live)).id,
    ];
    await submit(api, { form_id: liveForm.id, answers: budgetAnswers(1000) }, test);
    await submit(api, { form_id: sandboxForm.id, answers: anaAnswers() }, test);
    const liveAnalytics = (await api.call('get', `/v1/analytics?form_id=${liveForm.id}`, live)).body;
    const testSubmissionsBefore = (await idsIn('/v1/submissions?limit=100', test)).length;
    expect(await aggregateRows(liveForm.id, 'test')).toBeGreaterThan(0);

    const reset = await api.call('delete', '/v1/test_data', live);
    expect(reset.status).toBe(200);
    expect(reset.body.deleted.submissions).toBe(testSubmissionsBefore);

    expect(await idsIn('/v1/submissions?limit=100', test)).toEqual([]);
    expect(await startedIn(liveForm.id, test)).toBe(0);
    expect(await aggregateRows(liveForm.id, 'test')).toBe(0);
    expect(await aggregateRows(sandboxForm.id, 'test')).toBe(0);
    expect((await api.call('get', `/v1/analytics?form_id=${sandboxForm.id}`, test)).status).toBe(404);

    expect(await idsIn(`/v1/submissions?form_id=${liveForm.id}`, live)).toEqual([...liveIds].reverse());
    const after = (await api.call('get', `/v1/analytics?form_id=${liveForm.id}`, live)).body;
    expect({ ...after, request_id: null }).toEqual({ ...liveAnalytics, request_id: null });
    expect(await aggregateRows(liveForm.id, 'live')).toBeGreaterThan(0);
  });
});

describe('DELETE /v1/forms/{id}', () => {
  it('when a form is deleted, then its live and test submissions and their aggregates go with it', async () => {
    const form = await createForm(api, demoForm(), live);
    const keep = await createForm(api, demoForm(), live);
    const kept = await submit(api, { form_id: keep.id, answers: anaAnswers() }, live);
    const gone = [
      await submit(api, { form_id: form.id, answers: anaAnswers() }, live),
      await submit(api, { form_id: form.id, answers: noBudgetAnswers(), status: 'partial' }, live),
    ];
    const goneTest = await submit(api, { form_id: form.id, answers: anaAnswers() }, test);
    expect((await aggregateRows(form.id, 'live')) + (await aggregateRows(form.id, 'test'))).toBeGreaterThan(0);

    expect((await api.call('delete', `/v1/forms/${form.id}`, live)).status).toBe(200);

    for (const submission of gone) expect((await api.call('get', `/v1/submissions/${submission.id}`, live)).status).toBe(404);
    expect((await api.call('get', `/v1/submissions/${goneTest.id}`, test)).status).toBe(404);
    expect(await idsIn(`/v1/submissions?form_id=${form.id}`, live)).toEqual([]);
    expect((await aggregateRows(form.id, 'live')) + (await aggregateRows(form.id, 'test'))).toBe(0);
    expect((await api.call('get', `/v1/submissions/${kept.id}`, live)).status).toBe(200);
    expect(await startedIn(keep.id, live)).toBe(1);
  });
});

describe('an accepted form transfer', () => {
  it('when a form moves to another workspace, then its submissions and analytics move with it', async () => {
    const form = await createForm(api, demoForm(), live);
    const moved = await submit(api, { form_id: form.id, answers: anaAnswers() }, live);
    const other = await api.otherWorkspace();
    await moveForm(api, form.id, other, live);

    expect((await api.call('get', `/v1/submissions/${moved.id}`, live)).status).toBe(404);
    expect(await idsIn('/v1/submissions?limit=100', live)).not.toContain(moved.id);
    expect((await api.call('get', `/v1/submissions/${moved.id}`, other.live_admin_key)).body.id).toBe(moved.id);
    expect(await idsIn(`/v1/submissions?form_id=${form.id}`, other.live_admin_key)).toEqual([moved.id]);
    expect(await startedIn(form.id, other.live_admin_key)).toBe(1);
  });
});
