/**
 * Bulk rescore jobs: a queue in the database, so that a job survives restarts and runs once however many
 * processes share the database. A process claims a job with a lease and renews it with every batch it commits;
 * a job whose lease ran out (its process stopped) is claimed again and goes on from its cursor. Each batch, its
 * aggregate moves and the job's progress commit in one short transaction, so a batch is applied exactly once.
 */
import type { Environment, Schema } from '../contract.js';
import type { Outbox } from './outbox.js';
import type { Rescore, SubmissionPartition } from './submission-store.js';

type RescoreJob = Schema<'RescoreJob'>;
type Submission = Schema<'Submission'>;

export interface RescoreJobRecord {
  job: RescoreJob;
  workspaceId: string;
  environment: Environment;
}

/** Where a job is: the last submission it rescored (newest first); null before the first batch. */
export interface RescoreCursor {
  createdAt: string;
  id: string;
}

/** A claimed job with what its runner needs to go on. */
export interface ClaimedRescoreJob extends RescoreJobRecord {
  cursor: RescoreCursor | null;
}

/** A submission as a batch reads it: enough to score it and to move its aggregates. */
export type RescoreCandidate = Pick<
  Submission,
  'id' | 'form_id' | 'status' | 'answers' | 'hidden' | 'score' | 'grade' | 'created_at' | 'updated_at'
>;

export interface RescoreBatch {
  /** Each candidate with its new score; applied only if the submission is unchanged since it was read. */
  updates: ReadonlyArray<{ candidate: RescoreCandidate; rescore: Rescore }>;
  /** The last candidate read, whether or not its update applies. */
  cursor: RescoreCursor;
}

export interface RescoreJobStore {
  /**
   * Stores a queued job whose `total` is the form's submission count in the environment (from the aggregates),
   * unless the form already has an active job there: then its id, and nothing is stored. `RecordNotFound('form')` when
   * the form is no longer in `record.workspaceId` (deleted, or moved by a transfer since the caller read it).
   */
  create(record: RescoreJobRecord, outbox?: Outbox<{ activeId: string } | RescoreJob>): Promise<{ activeId: string } | RescoreJob>;
  get(partition: SubmissionPartition, id: string): Promise<RescoreJob | undefined>;
  /** Takes the oldest queued job, or a running one whose lease has run out, for `owner` until `leaseUntil`. */
  claim(owner: string, now: string, leaseUntil: string): Promise<ClaimedRescoreJob | undefined>;
  /** The job's next submissions after `cursor`, newest first, created no later than the job. */
  candidates(job: RescoreJobRecord, cursor: RescoreCursor | null, limit: number): Promise<RescoreCandidate[]>;
  /**
   * Applies a batch (scores, aggregates, progress, cursor) and renews the lease, in one transaction; false, and
   * nothing applied, when `owner` no longer holds the job (its lease ran out and another process took it).
   */
  applyBatch(jobId: string, owner: string, batch: RescoreBatch, leaseUntil: string): Promise<boolean>;
  /** Ends a job `owner` holds. */
  finish(
    jobId: string,
    owner: string,
    outcome: { status: 'succeeded' | 'failed'; at: string; failureMessage: string | null },
  ): Promise<void>;
}
