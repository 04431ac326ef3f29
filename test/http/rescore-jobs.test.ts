/**
 * Bulk rescoring (POST /v1/forms/{id}/rescore, GET /v1/rescore_jobs/{id}): a job per form and environment, run
 * in batches by the worker (called here directly), with progress, resumable from its cursor when its process
 * stops, and the same scores a one-by-one rescore would give.
 */
import { describe, expect, it } from 'vitest';
import { runRescoreJobs } from '../../src/domain/rescore-jobs/worker.js';
import { createForm, type Form, submit } from '../support/factories.js';
import { useWatchedApi } from '../support/http-checks.js';
import { anaAnswers, budgetAnswers, demoForm, noBudgetAnswers, recordingEvents } from './submissions-support.js';

const highLimits = { perKeyPerSecond: 100_000, perWorkspacePerMinute: 10_000_000, failedAuthPerAddressPerMinute: 10_000 };
const events = recordingEvents();
const api = useWatchedApi({ rateLimits: highLimits, events: events.publisher });

/** The demo scoring with the big-budget rule worth 60 instead of 40; grades unchanged. */
const richerScoring = {
  rules: [{ id: 'big_budget', when: { field: 'budget_usd', op: 'gte', value: 50000 }, points: 60 }],
  grades: [
    { label: 'A', min_score: 50 },
    { label: 'B', min_score: 20 },
    { label: 'C', min_score: 0 },
  ],
};

/** A form with five submissions of which three score differently under `richerScoring`; returns their ids. */
async function formWithLeads(
  beforeScoringChange: (form: Form) => Promise<void> = async () => {},
  key = api.workspace.live_admin_key,
): Promise<{ form: Form; changing: string[]; steady: string[] }> {
  const form = await createForm(api, demoForm());
  const changing = [
    (await submit(api, { form_id: form.id, answers: anaAnswers() }, key)).id, // 65 A → 85 A
    (await submit(api, { form_id: form.id, answers: anaAnswers() }, key)).id,
    (await submit(api, { form_id: form.id, answers: budgetAnswers(60_000) }, key)).id, // 40 B → 60 A
  ];
  const steady = [
    (await submit(api, { form_id: form.id, answers: noBudgetAnswers() }, key)).id, // 10 C
    (await submit(api, { form_id: form.id, answers: noBudgetAnswers() }, key)).id,
  ];
  await beforeScoringChange(form);
  const patched = await api.call('patch', `/v1/forms/${form.id}`).send({ scoring: richerScoring });
  expect(patched.status).toBe(200);
  return { form, changing, steady };
}

const startRescore = (formId: string, key = api.workspace.live_admin_key) => api.call('post', `/v1/forms/${formId}/rescore`, key);
const jobOf = async (id: string, key = api.workspace.live_admin_key) => {
  const res = await api.call('get', `/v1/rescore_jobs/${id}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe('POST /v1/forms/{id}/rescore', () => {
  it('when a job is started, then 202 with a queued job; run to the end it rescores every submission with the new scoring', async () => {
    const { form, changing, steady } = await formWithLeads();
    events.published.length = 0;

    const res = await startRescore(form.id);

    expect(res.status).toBe(202);
    expect(res.headers.location).toBe(`/v1/rescore_jobs/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^rsj_/),
      object: 'rescore_job',
      form_id: form.id,
      form_version: 2,
      status: 'queued',
      test: false,
      total: 5,
      processed: 0,
      changed: 0,
      failure_message: null,
      created_at: expect.any(String),
      started_at: null,
      finished_at: null,
      request_id: res.headers['x-request-id'],
    });
    expect(await runRescoreJobs(api.services, { batchSize: 2 })).toBe(1);

    expect(await jobOf(res.body.id)).toMatchObject({ status: 'succeeded', total: 5, processed: 5, changed: 3, failure_message: null });
    const scores = async (ids: string[]) =>
      Promise.all(
        ids.map(async (id) => {
          const { score, grade, form_version } = (await api.call('get', `/v1/submissions/${id}`)).body;
          return { score, grade, form_version };
        }),
      );
    expect(await scores(changing)).toEqual([
      { score: 85, grade: 'A', form_version: 2 },
      { score: 85, grade: 'A', form_version: 2 },
      { score: 60, grade: 'A', form_version: 2 },
    ]);
    expect(await scores(steady)).toEqual([
      { score: 10, grade: 'C', form_version: 2 },
      { score: 10, grade: 'C', form_version: 2 },
    ]);
    // Bulk rescoring does not flood integrations with one event per submission.
    expect(events.published.filter((event) => event.type === 'submission.rescored')).toEqual([]);
  });

  it('when a job is rescored, then the analytics follow as if each submission had been rescored on its own', async () => {
    const { form, changing } = await formWithLeads();
    const twin = await formWithLeads();
    await startRescore(form.id);
    await runRescoreJobs(api.services);
    for (const id of [...twin.changing, ...twin.steady]) {
      expect((await api.call('post', `/v1/submissions/${id}/rescore`)).status).toBe(200);
    }
    const figures = async (formId: string) => {
      const { score, submissions } = (await api.call('get', `/v1/analytics?form_id=${formId}`)).body;
      return { score, submissions };
    };
    expect(changing).toHaveLength(3);
    expect(await figures(form.id)).toEqual(await figures(twin.form.id));
  });

  it('when the process running a job stops, then another takes it over after the lease and goes on from the last batch', async () => {
    const { form } = await formWithLeads();
    const { body: job } = await startRescore(form.id);
    let checks = 0;
    // One batch, then the process "stops"; its lease (0 ms) has already run out.
    await runRescoreJobs(api.services, { batchSize: 2, leaseMs: 0, owner: 'first', stopping: () => checks++ > 1 });

    expect(await jobOf(job.id)).toMatchObject({ status: 'running', processed: 2, started_at: expect.any(String), finished_at: null });
    expect(await runRescoreJobs(api.services, { batchSize: 2, owner: 'second' })).toBe(1);
    expect(await jobOf(job.id)).toMatchObject({ status: 'succeeded', processed: 5, changed: 3, finished_at: expect.any(String) });
  });

  it('when the form already has an active job, then 409 rescore_in_progress naming it; once it finished, a new one starts', async () => {
    const { form } = await formWithLeads();
    const first = await startRescore(form.id);
    const second = await startRescore(form.id);

    expect(second.status).toBe(409);
    expect(second.body.code).toBe('rescore_in_progress');
    expect(second.body.message).toContain(first.body.id);

    await runRescoreJobs(api.services);
    const third = await startRescore(form.id);
    expect(third.status).toBe(202);
    expect(third.body.id).not.toBe(first.body.id);
    await runRescoreJobs(api.services);
    // Nothing left to change.
    expect(await jobOf(third.body.id)).toMatchObject({ status: 'succeeded', processed: 5, changed: 0 });
  });

  it("when a test key rescores a live form, then only the test submissions are rescored, in the test environment's own job", async () => {
    const testKey = api.workspace.test_admin_key;
    const { form, changing } = await formWithLeads(async (unchanged) => {
      await submit(api, { form_id: unchanged.id, answers: anaAnswers() }, testKey);
    });
    const testJob = await startRescore(form.id, testKey);

    expect(testJob.status).toBe(202);
    expect(testJob.body).toMatchObject({ test: true, total: 1 });
    expect((await api.call('get', `/v1/rescore_jobs/${testJob.body.id}`)).status).toBe(404);
    await runRescoreJobs(api.services);
    expect(await jobOf(testJob.body.id, testKey)).toMatchObject({ status: 'succeeded', processed: 1, changed: 1 });
    expect((await api.call('get', `/v1/submissions/${changing[0]}`)).body.score).toBe(65);

    // The live environment has its own job, even while a test one is active.
    expect((await startRescore(form.id, testKey)).status).toBe(202);
    const liveJob = await startRescore(form.id);
    expect(liveJob.status).toBe(202);
    await runRescoreJobs(api.services);
    expect(await jobOf(liveJob.body.id)).toMatchObject({ test: false, processed: 5, changed: 3 });
  });

  it('when the form or the job does not exist, or the form is test-only and the key live, then 404', async () => {
    const unknownForm = await startRescore(`form_${'x'.repeat(24)}`);
    expect(unknownForm.status).toBe(404);
    expect(unknownForm.body.code).toBe('resource_not_found');
    const unknownJob = await api.call('get', `/v1/rescore_jobs/rsj_${'x'.repeat(24)}`);
    expect(unknownJob.status).toBe(404);
    const testForm = await createForm(api, demoForm(), api.workspace.test_admin_key);
    expect((await startRescore(testForm.id)).status).toBe(404);
  });

  it('when the key only reads, then 403 insufficient_scope; reading a job needs only read', async () => {
    const { form } = await formWithLeads();
    const reader = await api.createKey({ name: 'reader', environment: 'live', scope: 'read' });
    const refused = await startRescore(form.id, reader.secret);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_scope');
    const { body: job } = await startRescore(form.id);
    expect((await jobOf(job.id, reader.secret)).id).toBe(job.id);
    await runRescoreJobs(api.services);
  });

  it('when the version the job pinned is no longer kept and the form has moved on, then the job fails saying so and no score changes', async () => {
    const { form, changing } = await formWithLeads();
    const { body: job } = await startRescore(form.id);
    const scoresBefore = await Promise.all(changing.map(async (id) => (await api.call('get', `/v1/submissions/${id}`)).body.score));
    expect((await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Renamed meanwhile' })).status).toBe(200);
    // What the retention of the latest 100 versions does to the pinned version after 100 more updates.
    await api.rows('DELETE FROM form_versions WHERE form_id = ? AND version = ?', form.id, job.form_version);
    expect(await runRescoreJobs(api.services)).toBe(1);
    const failed = await jobOf(job.id);
    expect(failed).toMatchObject({ status: 'failed', processed: 0 });
    expect(failed.failure_message).toContain(`Version ${job.form_version} of the form is no longer kept`);
    const scoresAfter = await Promise.all(changing.map(async (id) => (await api.call('get', `/v1/submissions/${id}`)).body.score));
    expect(scoresAfter).toEqual(scoresBefore);
    // A failed job is not active: a new one can start (and is run here, so that no job is left queued).
    const { status, body: next } = await startRescore(form.id);
    expect(status).toBe(202);
    expect(await runRescoreJobs(api.services)).toBe(1);
    expect((await jobOf(next.id)).status).toBe('succeeded');
  });

  it('when the store fails while a job runs, then the job is marked failed with a generic message and the error is reported', async () => {
    const { form } = await formWithLeads();
    const { body: job } = await startRescore(form.id);
    const store = api.services.store;
    const failing = {
      ...api.services,
      store: {
        ...store,
        rescoreJobs: {
          ...store.rescoreJobs,
          candidates: () => Promise.reject(new Error('disk I/O error')),
        },
      },
    };
    const reported: unknown[] = [];
    expect(await runRescoreJobs(failing, { onError: (error) => reported.push(error) })).toBe(1);
    expect(reported).toEqual([new Error('disk I/O error')]);
    const failed = await jobOf(job.id);
    expect(failed.status).toBe('failed');
    expect(failed.failure_message).toBe('The job stopped on an unexpected error; start a new one.');
    expect(failed.failure_message).not.toContain('disk');
  });

  it('when the form is deleted, then its jobs go with it', async () => {
    const { form } = await formWithLeads();
    const { body: job } = await startRescore(form.id);
    expect((await api.call('delete', `/v1/forms/${form.id}`)).status).toBe(200);
    expect((await api.call('get', `/v1/rescore_jobs/${job.id}`)).status).toBe(404);
    expect(await runRescoreJobs(api.services)).toBe(0);
  });
});
