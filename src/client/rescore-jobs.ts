import type { FormFunnelClient } from './create-form-funnel-client.js';
import type { RescoreJob } from './schemas.js';
import { unwrap } from './unwrap.js';

export interface WaitForRescoreJobOptions {
  /** Between two reads of the job; default 2,000 ms. */
  intervalMs?: number;
  /** Stops waiting (the job goes on in the service): the returned promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with every read of the job, for progress (`processed` of `total`). */
  onProgress?: (job: RescoreJob) => void;
  /** How to wait; tests pass a fake. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const finished = (job: RescoreJob) => job.status === 'succeeded' || job.status === 'failed';

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Reads a rescore job until it has `succeeded` or `failed`, and returns it as it ended:
 *
 *   const job = unwrap(await client.POST('/forms/{id}/rescore', { params: { path: { id: formId } } }));
 *   const done = await waitForRescoreJob(client, job.id, { onProgress: (j) => console.log(j.processed, '/', j.total) });
 *
 * A failed job is returned, not thrown (its `failure_message` says why); an error answer throws a FormFunnelError.
 */
export async function waitForRescoreJob(
  client: FormFunnelClient,
  jobId: string,
  options: WaitForRescoreJobOptions = {},
): Promise<RescoreJob> {
  const { intervalMs = 2000, signal, onProgress, sleep = sleepFor } = options;
  for (;;) {
    const { request_id: _requestId, ...job } = unwrap(await client.GET('/rescore_jobs/{id}', { params: { path: { id: jobId } }, signal }));
    onProgress?.(job);
    if (finished(job)) return job;
    await sleep(intervalMs, signal);
  }
}
