import { describe, expect, it } from 'vitest';
import { createFormFunnelClient, FormFunnelError, type RescoreJob, waitForRescoreJob } from '../../src/client/index.js';
import { fakeFetch, json, problem, REQUEST_ID, recordingSleep } from './fake-transport.js';

const API_KEY = 'svc_test_4eC39HqLyjWDarjtT1zdp7dc';
const JOB_ID = 'rsj_4fGh7JkL2mNp5QrS8tUv1WxY';

const job = (status: RescoreJob['status'], processed: number): RescoreJob => ({
  id: JOB_ID,
  object: 'rescore_job',
  form_id: 'form_2kTz9QwErTy7UiOp4AsDfGhJ',
  form_version: 4,
  status,
  test: true,
  total: 10,
  processed,
  changed: 3,
  failure_message: null,
  created_at: '2026-11-26T09:20:00.000Z',
  started_at: status === 'queued' ? null : '2026-11-26T09:20:00.412Z',
  finished_at: status === 'succeeded' ? '2026-11-26T09:20:41.903Z' : null,
});
const answer = (body: RescoreJob) => () => json(200, { ...body, request_id: REQUEST_ID });

describe('waitForRescoreJob', () => {
  it('when the job runs, then it reads it every interval, reports progress and returns it once it succeeded', async () => {
    const transport = fakeFetch(answer(job('queued', 0)), answer(job('running', 5)), answer(job('succeeded', 10)));
    const client = createFormFunnelClient({ apiKey: API_KEY, fetch: transport.fetch, maxRetries: 0 });
    const waits: number[] = [];
    const progress: number[] = [];

    const done = await waitForRescoreJob(client, JOB_ID, {
      intervalMs: 500,
      sleep: async (ms) => {
        waits.push(ms);
      },
      onProgress: (read) => progress.push(read.processed),
    });

    expect(done).toEqual(job('succeeded', 10));
    expect(progress).toEqual([0, 5, 10]);
    expect(waits).toEqual([500, 500]);
    expect(transport.requests.map((request) => new URL(request.url).pathname)).toEqual(Array(3).fill(`/v1/rescore_jobs/${JOB_ID}`));
  });

  it('when the job is unknown, then a FormFunnelError is thrown', async () => {
    const transport = fakeFetch(problem(404, 'resource_not_found', 'not_found'));
    const client = createFormFunnelClient({ apiKey: API_KEY, fetch: transport.fetch, sleep: recordingSleep().sleep, maxRetries: 0 });
    await expect(waitForRescoreJob(client, JOB_ID)).rejects.toBeInstanceOf(FormFunnelError);
  });
});
