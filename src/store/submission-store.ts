/**
 * Persistence of submissions and their analytics aggregates. Every write that changes what analytics report
 * (insert, delete, rescore) records its change to the aggregates in the same transaction (SQLite updates the rows;
 * PostgreSQL appends a delta that `funnel` adds until it is folded in), so `funnel` never reads submissions and
 * never disagrees with them.
 */
import type { Attachment, Environment, Schema } from '../contract.js';
import type { AuditEventInput } from './audit-event-input.js';
import type { Outbox } from './outbox.js';
import type { Page, PageRequest } from './page.js';
import type { SearchScan } from './search-scan.js';

type Submission = Schema<'Submission'>;

export interface SubmissionRecord {
  submission: Submission;
  workspaceId: string;
  environment: Environment;
  /**
   * The form version the answers were checked against at creation (a rescore moves `form_version`, not this).
   * Always present on a read; an insert without it stores `form_version`.
   */
  startedFormVersion?: number;
  /**
   * What `q` searches, written on insert: the lower-cased answers of the searchable fields, one per line (see
   * `searchTextOf` in the domain). Absent: nothing is searchable.
   */
  searchText?: string | undefined;
  /**
   * The string answers to its form version's `email` fields, as given (see `emailAnswersOf` in the domain); the
   * store normalises them into the erasure's address index. Absent: the store derives them in SQL from the
   * stored answers and the version's definition, which on a large form takes most of a second.
   */
  emailAnswers?: readonly string[] | undefined;
}

/** One environment of one workspace: live and test submissions never meet in a query. */
export interface SubmissionPartition {
  workspaceId: string;
  environment: Environment;
}

export interface SubmissionFilter {
  formId?: string | undefined;
  status?: Submission['status'] | undefined;
  /** Normalised ISO timestamps (`Date#toISOString`), so they compare as the stored ones do. */
  createdGte?: string | undefined;
  createdLt?: string | undefined;
  minScore?: number | undefined;
  maxScore?: number | undefined;
  /** Any of these grade labels. */
  grades?: readonly string[] | undefined;
  /** Lower-cased text that must occur, literally, in the stored search text. */
  search?: string | undefined;
  updatedGte?: string | undefined;
  updatedLt?: string | undefined;
  /** On `completed_at`: a submission not completed matches neither. */
  completedGte?: string | undefined;
  completedLt?: string | undefined;
  /** Exact `context.utm.source`. */
  utmSource?: string | undefined;
  /** Pairs `metadata` must hold, each exactly (at most 5, as the document bounds the parameter). */
  metadata?: Readonly<Record<string, string>> | undefined;
}

/** The order of a list: the key, then `id`, both in `direction`. */
export interface SubmissionOrder {
  key: 'created_at' | 'score';
  direction: 'asc' | 'desc';
}

export const newestFirst: SubmissionOrder = { key: 'created_at', direction: 'desc' };

export interface Rescore {
  score: number;
  grade: string | null;
  scoreBreakdown: Submission['score_breakdown'];
  formVersion: number;
  at: string;
}

export interface RescoreResult {
  submission: Submission;
  previous: Pick<Submission, 'score' | 'grade' | 'form_version'>;
}

/**
 * A resume's new submission, decided from the stored one as it is under the write lock (so a concurrent resume's
 * answers are merged, never overwritten), with what `q` searches in it (see `SubmissionRecord.searchText`). It may
 * throw to refuse; nothing is then written.
 */
export type SubmissionChange = (current: Submission) => {
  submission: Submission;
  searchText: string;
  /** As `SubmissionRecord.emailAnswers`, for the changed answers. */
  emailAnswers?: readonly string[] | undefined;
};

/** A submission's email answers with where its index entries go (the stores' `insertSubmissionEmails`). */
export interface ListedEmailAnswers {
  workspaceId: string;
  environment: Environment;
  formId: string;
  answers: readonly string[];
}

/** The listed answers of a submission in its partition and form; undefined when none were named. */
export function listedEmailAnswers(
  where: { workspaceId: string; environment: Environment; submission: Pick<Submission, 'form_id'> },
  answers: readonly string[] | undefined,
): ListedEmailAnswers | undefined {
  return answers === undefined
    ? undefined
    : { workspaceId: where.workspaceId, environment: where.environment, formId: where.submission.form_id, answers };
}

export interface ResumeResult {
  submission: Submission;
  previous: Submission;
}

/** What an erasure deleted. */
export interface ErasureResult {
  deletedSubmissions: number;
  /** The deleted submissions, in id order, with their forms (for the `submission.erased` events). */
  erased: ReadonlyArray<{ id: string; formId: string }>;
  /** Pending webhook attempts about the erased submissions that were dropped with their stored events. */
  canceledDeliveries: number;
}

/** Aggregates of one form and environment over a range of days (`YYYY-MM-DD`, both ends included). */
export interface FunnelQuery {
  formId: string;
  environment: Environment;
  from: string;
  to: string;
  /** How many UTM sources `sources.top` lists at most; the rest are summed in `sources.other`. */
  topSources: number;
}

export interface SourceCount {
  /** null: submissions created without a UTM source. */
  source: string | null;
  started: number;
  completed: number;
}

export interface FunnelTotals {
  /** Only days that have submissions, oldest first. Score sums and counts are of completed submissions. */
  days: Array<{ day: string; started: number; completed: number; scoreSum: number; scoreCount: number }>;
  /** Every step id stored on a visited path in the range, including ids an older version had; in byte order of the id. */
  steps: Array<{ stepId: string; reached: number; droppedOff: number }>;
  /** Completed submissions by stored grade (null: no grade), in byte order of the stored grade key. */
  grades: Array<{ grade: string | null; completed: number }>;
  /** Submissions by UTM source: the sources with most started first (ties by source, none first), and the rest. */
  sources: { top: SourceCount[]; other: { sources: number; started: number; completed: number } };
}

export interface SubmissionStore {
  /**
   * Stores the submission and adds it to the aggregates, if its form is still in `record.workspaceId` (checked in the
   * insert's transaction): `RecordNotFound('form')` when the form was deleted or moved to another workspace.
   */
  insert(record: SubmissionRecord, outbox?: Outbox<void>): Promise<void>;
  /**
   * In `order` (newest first by default), keyset-paged from the cursor row's key; `attachment` narrows the
   * partition to the forms a form- or folder-attached key reaches. A `search` reads the list in `scan`'s
   * windows (default `defaultSearchScan`) and may end early: see `scanForMatches`, whose `SearchTooBroad` it throws.
   */
  list(
    partition: SubmissionPartition & { attachment: Attachment },
    filter: SubmissionFilter,
    page: PageRequest,
    order?: SubmissionOrder,
    scan?: SearchScan,
  ): Promise<Page<Submission>>;
  get(partition: SubmissionPartition, id: string): Promise<SubmissionRecord | undefined>;
  /**
   * Deletes the partition's submission and takes it out of the aggregates, and clears the responses kept for
   * Idempotency-Key retries that carry it, as `erase` does; `RecordNotFound` when the partition no longer holds it
   * (deleted, or moved with its form to another workspace). Writes the outbox (its `submission.deleted` event) in
   * the same transaction.
   */
  delete(partition: SubmissionPartition, id: string, outbox?: Outbox<void>): Promise<void>;
  /**
   * Erases a person from the partition in one transaction: every submission with an `email` answer equal to
   * `email` once both are normalised (surrounding whitespace removed, ASCII letters lower-cased), found through
   * the address index; each leaves the aggregates as `delete` takes it out, and the stored `submission.*` events
   * about it go with their pending attempts, and the responses kept for Idempotency-Key retries that carry it are
   * cleared. Writes the audit event `audit` returns (given the result, never the address) in the same transaction.
   */
  erase(
    partition: SubmissionPartition,
    email: string,
    audit: (result: ErasureResult) => AuditEventInput,
    outbox?: Outbox<ErasureResult>,
  ): Promise<ErasureResult>;
  /**
   * Replaces the score of the partition's submission and moves the aggregates from the old score to the new one;
   * `RecordNotFound` when the partition no longer holds it.
   */
  rescore(partition: SubmissionPartition, id: string, rescore: Rescore, outbox?: Outbox<RescoreResult>): Promise<RescoreResult>;
  /**
   * Replaces the submission with `change(current)` under a write lock and moves it in the aggregates (taken out as
   * it was, added as it is: a start stays one start); `RecordNotFound` when the partition no longer holds it.
   */
  resume(partition: SubmissionPartition, id: string, change: SubmissionChange, outbox?: Outbox<ResumeResult>): Promise<ResumeResult>;
  /**
   * Replaces the submission with `change(current)` under a write lock, writing only its `metadata` and `updated_at`
   * (nothing the aggregates or the search read); `RecordNotFound` when the partition no longer holds it.
   */
  updateMetadata(partition: SubmissionPartition, id: string, change: (current: Submission) => Submission): Promise<Submission>;
  funnel(query: FunnelQuery): Promise<FunnelTotals>;
}
