import type { Environment, Schema } from '../../contract.js';
import type { ClaimedRescoreJob, RescoreCandidate } from '../rescore-job-store.js';
import { fromJson } from './json.js';

type RescoreJob = Schema<'RescoreJob'>;

export interface RescoreJobRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  form_id: string;
  form_version: number;
  status: RescoreJob['status'];
  total: number;
  processed: number;
  changed: number;
  failure_message: string | null;
  cursor_created_at: string | null;
  cursor_id: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export const toRescoreJob = (row: RescoreJobRow): RescoreJob => ({
  id: row.id,
  object: 'rescore_job',
  form_id: row.form_id,
  form_version: row.form_version,
  status: row.status,
  test: row.environment === 'test',
  total: row.total,
  processed: row.processed,
  changed: row.changed,
  failure_message: row.failure_message,
  created_at: row.created_at,
  started_at: row.started_at,
  finished_at: row.finished_at,
});

export const toClaimedRescoreJob = (row: RescoreJobRow): ClaimedRescoreJob => ({
  job: toRescoreJob(row),
  workspaceId: row.workspace_id,
  environment: row.environment,
  cursor: row.cursor_created_at === null || row.cursor_id === null ? null : { createdAt: row.cursor_created_at, id: row.cursor_id },
});

/** The columns a candidate is read with (`RescoreCandidateRow`). */
export const candidateColumns = 'id, form_id, status, answers, hidden, score, grade, created_at, updated_at';

export interface RescoreCandidateRow {
  id: string;
  form_id: string;
  status: RescoreCandidate['status'];
  answers: unknown;
  hidden: unknown;
  score: number;
  grade: string | null;
  created_at: string;
  updated_at: string;
}

export const toRescoreCandidate = (row: RescoreCandidateRow): RescoreCandidate => ({
  id: row.id,
  form_id: row.form_id,
  status: row.status,
  answers: fromJson<RescoreCandidate['answers']>(row.answers),
  hidden: fromJson<RescoreCandidate['hidden']>(row.hidden),
  score: row.score,
  grade: row.grade,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** Whether a rescore changes what a submission reports as its lead quality. */
export const scoreChanged = (before: Pick<RescoreCandidate, 'score' | 'grade'>, after: { score: number; grade: string | null }): boolean =>
  before.score !== after.score || before.grade !== after.grade;
