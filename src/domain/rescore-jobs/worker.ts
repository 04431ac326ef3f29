/**
 * Runs bulk rescore jobs in the background of a server process. Every process runs one; the store's claim
 * (a lease) gives each job to one process at a time, and a job whose process stopped is claimed again once its
 * lease runs out, going on from the last batch that committed.
 *
 * A job is a loop of small batches: read the next submissions, score them in memory, write them with their
 * aggregate moves and the job's progress in one short transaction. The event loop is given back between the
 * read and the write and after every batch, so requests keep being served while a job runs: the batch size
 * bounds the longest block (test/bench/rescore-bench.ts measures it at one million submissions).
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { randomBase62 } from '../../ids.js';
import type { ClaimedRescoreJob, RescoreBatch } from '../../store/rescore-job-store.js';
import type { FormDefinition } from '../schema-types.js';
import { scoreSubmission } from '../scoring/score-submission.js';
import { type Services, timestamp } from '../services.js';

export interface RescoreWorkerOptions {
  /** Submissions per batch (one transaction). */
  batchSize?: number | undefined;
  /** How long a claimed job is withheld from other processes without a committed batch. */
  leaseMs?: number | undefined;
  /** How often an idle worker looks for queued jobs. */
  pollIntervalMs?: number | undefined;
  /** This process's name on the jobs it holds; random by default. */
  owner?: string | undefined;
  onError?: ((error: unknown) => void) | undefined;
}

export const defaultRescoreBatchSize = 500;
const defaultLeaseMs = 60_000;

type WorkerServices = Pick<Services, 'store' | 'now'>;

/** Why a job cannot go on; stored as its `failure_message`. */
class JobFailure extends Error {}

async function definitionOf(services: WorkerServices, { job, workspaceId }: ClaimedRescoreJob): Promise<FormDefinition> {
  const version = await services.store.forms.getVersion(job.form_id, job.form_version);
  if (version) return version;
  const current = await services.store.forms.get(workspaceId, job.form_id);
  if (!current) throw new JobFailure('The form was deleted.');
  if (current.form.version !== job.form_version) {
    throw new JobFailure(`Version ${job.form_version} of the form is no longer kept; start a new job for the current version.`);
  }
  return current.form;
}

/**
 * Runs one claimed job to its end, or until `owner` loses it (another process took it over after its lease ran
 * out) or `stopping()` turns true (it stays claimed; its lease runs out and a process takes it up again).
 */
async function runJob(
  services: WorkerServices,
  claimed: ClaimedRescoreJob,
  owner: string,
  settings: { batchSize: number; leaseMs: number; stopping: () => boolean },
): Promise<void> {
  const leaseUntil = () => new Date(services.now().getTime() + settings.leaseMs).toISOString();
  const finish = (status: 'succeeded' | 'failed', failureMessage: string | null) =>
    services.store.rescoreJobs.finish(claimed.job.id, owner, { status, at: timestamp(services), failureMessage });
  let definition: FormDefinition;
  try {
    definition = await definitionOf(services, claimed);
  } catch (error) {
    if (error instanceof JobFailure) return finish('failed', error.message);
    throw error;
  }
  let cursor = claimed.cursor;
  while (!settings.stopping()) {
    const candidates = await services.store.rescoreJobs.candidates(claimed, cursor, settings.batchSize);
    if (candidates.length === 0) return finish('succeeded', null);
    await yieldToEventLoop();
    const at = timestamp(services);
    const last = candidates[candidates.length - 1]!;
    const batch: RescoreBatch = {
      updates: candidates.map((candidate) => {
        const { score, grade, breakdown } = scoreSubmission(definition, candidate.answers, candidate.hidden);
        return { candidate, rescore: { score, grade, scoreBreakdown: breakdown, formVersion: claimed.job.form_version, at } };
      }),
      cursor: { createdAt: last.created_at, id: last.id },
    };
    if (!(await services.store.rescoreJobs.applyBatch(claimed.job.id, owner, batch, leaseUntil()))) return;
    cursor = batch.cursor;
    await yieldToEventLoop();
  }
}

/** Claims and runs jobs until none is left to claim; resolves with how many it ran. Tests and the worker call it. */
export async function runRescoreJobs(
  services: WorkerServices,
  options: RescoreWorkerOptions & { stopping?: () => boolean } = {},
): Promise<number> {
  const owner = options.owner ?? `rescore_${randomBase62(12)}`;
  const settings = {
    batchSize: options.batchSize ?? defaultRescoreBatchSize,
    leaseMs: options.leaseMs ?? defaultLeaseMs,
    stopping: options.stopping ?? (() => false),
  };
  let ran = 0;
  while (!settings.stopping()) {
    const now = services.now();
    const claimed = await services.store.rescoreJobs.claim(
      owner,
      now.toISOString(),
      new Date(now.getTime() + settings.leaseMs).toISOString(),
    );
    if (!claimed) break;
    ran++;
    try {
      await runJob(services, claimed, owner, settings);
    } catch (error) {
      options.onError?.(error);
      await services.store.rescoreJobs
        .finish(claimed.job.id, owner, {
          status: 'failed',
          at: timestamp(services),
          failureMessage: 'The job stopped on an unexpected error; start a new one.',
        })
        .catch(options.onError);
    }
  }
  return ran;
}

export interface RescoreWorker {
  /** Stops claiming; a job in progress stops after its current batch and is resumed by a process later. */
  stop(): Promise<void>;
}

export function startRescoreWorker(services: WorkerServices, options: RescoreWorkerOptions = {}): RescoreWorker {
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const owner = options.owner ?? `rescore_${randomBase62(12)}`;
  const tick = () => {
    running = runRescoreJobs(services, { ...options, owner, stopping: () => stopped })
      .catch(options.onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.pollIntervalMs ?? 1000);
      });
  };
  let timer = setTimeout(tick, 0);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
