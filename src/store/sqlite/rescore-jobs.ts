import type Database from 'better-sqlite3';
import { RecordNotFound } from '../errors.js';
import type { RescoreJobStore } from '../rescore-job-store.js';
import {
  candidateColumns,
  type RescoreCandidateRow,
  type RescoreJobRow,
  scoreChanged,
  toClaimedRescoreJob,
  toRescoreCandidate,
  toRescoreJob,
} from '../rows/rescore-jobs.js';
import { withOutbox } from './outbox.js';
import { statement, transaction } from './statements.js';
import { moveScore } from './submissions.js';

/**
 * The SQLite side of the rescore queue. One process owns an SQLite file, so leases matter only when a process
 * restarts mid-job; they work the same way as on PostgreSQL. Every method is one short transaction: a batch's
 * size, not the job's, bounds how long the event loop is held.
 */
export function sqliteRescoreJobs(db: Database.Database): RescoreJobStore {
  const activeJob = (formId: string, environment: string) =>
    statement(db, `SELECT id FROM rescore_jobs WHERE form_id = ? AND environment = ? AND status IN ('queued','running')`).get(
      formId,
      environment,
    ) as { id: string } | undefined;

  return {
    async create({ job, workspaceId, environment }, outbox) {
      return withOutbox(db, outbox, () => {
        // The job is the workspace's only while the form is: checked in the insert's transaction, after which a
        // transfer's accept moves the job with the form.
        if (!statement(db, 'SELECT 1 FROM forms WHERE id = ? AND workspace_id = ?').get(job.form_id, workspaceId))
          throw new RecordNotFound('form', job.form_id);
        const active = activeJob(job.form_id, environment);
        if (active) return { activeId: active.id };
        const { total } = statement(
          db,
          'SELECT COALESCE(SUM(started), 0) AS total FROM submission_days WHERE form_id = ? AND environment = ?',
        ).get(job.form_id, environment) as { total: number };
        statement(
          db,
          `INSERT INTO rescore_jobs (id, workspace_id, environment, form_id, form_version, status, total, processed, changed, created_at)
           VALUES (?, ?, ?, ?, ?, 'queued', ?, 0, 0, ?)`,
        ).run(job.id, workspaceId, environment, job.form_id, job.form_version, total, job.created_at);
        return { ...job, total };
      });
    },
    async get({ workspaceId, environment }, id) {
      const row = statement(db, 'SELECT * FROM rescore_jobs WHERE id = ? AND workspace_id = ? AND environment = ?').get(
        id,
        workspaceId,
        environment,
      ) as RescoreJobRow | undefined;
      return row && toRescoreJob(row);
    },
    async claim(owner, now, leaseUntil) {
      return transaction(db, 'immediate', () => {
        const row = statement(
          db,
          `SELECT id FROM rescore_jobs WHERE status = 'queued' OR (status = 'running' AND lease_until < ?) ORDER BY created_at LIMIT 1`,
        ).get(now) as { id: string } | undefined;
        if (!row) return undefined;
        statement(
          db,
          `UPDATE rescore_jobs SET status = 'running', lease_owner = ?, lease_until = ?, started_at = COALESCE(started_at, ?) WHERE id = ?`,
        ).run(owner, leaseUntil, now, row.id);
        return toClaimedRescoreJob(statement(db, 'SELECT * FROM rescore_jobs WHERE id = ?').get(row.id) as RescoreJobRow);
      });
    },
    async candidates({ job, environment }, cursor, limit) {
      // Newest first on the form's list index, from the cursor down; nothing created after the job. `created_at <= ?`
      // drives the index range (as in ./pagination.ts); the OR then only skips the cursor's own timestamp.
      const rows = (
        cursor === null
          ? statement(
              db,
              `SELECT ${candidateColumns} FROM submissions WHERE form_id = ? AND environment = ? AND created_at <= ?
               ORDER BY created_at DESC, id DESC LIMIT ?`,
            ).all(job.form_id, environment, job.created_at, limit)
          : statement(
              db,
              `SELECT ${candidateColumns} FROM submissions
               WHERE form_id = ? AND environment = ? AND created_at <= ? AND (created_at < ? OR id < ?)
               ORDER BY created_at DESC, id DESC LIMIT ?`,
            ).all(job.form_id, environment, cursor.createdAt, cursor.createdAt, cursor.id, limit)
      ) as RescoreCandidateRow[];
      return rows.map(toRescoreCandidate);
    },
    async applyBatch(jobId, owner, { updates, cursor }, leaseUntil) {
      return transaction(db, 'immediate', () => {
        const job = statement(db, `SELECT environment FROM rescore_jobs WHERE id = ? AND status = 'running' AND lease_owner = ?`).get(
          jobId,
          owner,
        ) as { environment: RescoreJobRow['environment'] } | undefined;
        if (!job) return false;
        let changed = 0;
        for (const { candidate, rescore } of updates) {
          // A submission changed since the batch read it (deleted, rescored, answered) keeps what it has now.
          const applied = statement(
            db,
            `UPDATE submissions SET score = ?, grade = ?, score_breakdown = ?, form_version = ?, scored_at = ?, updated_at = ?
               WHERE id = ? AND updated_at = ?`,
          ).run(
            rescore.score,
            rescore.grade,
            JSON.stringify(rescore.scoreBreakdown),
            rescore.formVersion,
            rescore.at,
            rescore.at,
            candidate.id,
            candidate.updated_at,
          ).changes;
          if (applied === 0 || !scoreChanged(candidate, rescore)) continue;
          moveScore(db, job.environment, candidate, rescore);
          changed++;
        }
        statement(
          db,
          `UPDATE rescore_jobs SET processed = processed + ?, changed = changed + ?, cursor_created_at = ?, cursor_id = ?, lease_until = ?
             WHERE id = ?`,
        ).run(updates.length, changed, cursor.createdAt, cursor.id, leaseUntil, jobId);
        return true;
      });
    },
    async finish(jobId, owner, { status, at, failureMessage }) {
      statement(
        db,
        `UPDATE rescore_jobs SET status = ?, finished_at = ?, failure_message = ?, lease_owner = NULL, lease_until = NULL
         WHERE id = ? AND lease_owner = ? AND status = 'running'`,
      ).run(status, at, failureMessage, jobId, owner);
    },
  };
}
