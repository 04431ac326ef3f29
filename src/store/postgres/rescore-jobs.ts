import type pg from 'pg';
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
import { mergedAggregates } from './aggregate-deltas.js';
import { all, inTransaction, isUniqueViolation, one, run } from './database.js';
import { withOutbox } from './outbox.js';
import { moveScore } from './submissions.js';

/**
 * The PostgreSQL side of the rescore queue, shared by every process of a deployment. A claim takes the job row
 * with `FOR UPDATE SKIP LOCKED`, so two processes never claim the same job; a batch locks the job row first and
 * checks the lease is still its own, so a process whose lease ran out (it stalled, another took over) cannot
 * apply a batch twice.
 */
export function postgresRescoreJobs(pool: pg.Pool): RescoreJobStore {
  return {
    async create({ job, workspaceId, environment }, outbox) {
      try {
        return await withOutbox(pool, outbox, async (client) => {
          // The job is the workspace's only while the form is: the form's row, held shared until the commit, orders
          // the insert with a transfer's accept or a delete (which lock it), which then move or delete the job too.
          if (!(await one(client, 'SELECT 1 FROM forms WHERE id = $1 AND workspace_id = $2 FOR SHARE', [job.form_id, workspaceId])))
            throw new RecordNotFound('form', job.form_id);
          const active = await one<{ id: string }>(
            client,
            `SELECT id FROM rescore_jobs WHERE form_id = $1 AND environment = $2 AND status IN ('queued','running')`,
            [job.form_id, environment],
          );
          if (active) return { activeId: active.id };
          const counted = await one<{ total: number }>(
            client,
            `SELECT COALESCE(SUM(started), 0)::bigint AS total FROM ${mergedAggregates.submission_days} a WHERE form_id = $1 AND environment = $2`,
            [job.form_id, environment],
          );
          const total = counted!.total;
          await run(
            client,
            `INSERT INTO rescore_jobs (id, workspace_id, environment, form_id, form_version, status, total, processed, changed, created_at)
             VALUES ($1, $2, $3, $4, $5, 'queued', $6, 0, 0, $7)`,
            [job.id, workspaceId, environment, job.form_id, job.form_version, total, job.created_at],
          );
          return { ...job, total };
        });
      } catch (error) {
        // Two requests raced past the check: the partial unique index let one in.
        if (!isUniqueViolation(error, 'rescore_jobs_active_form')) throw error;
        const active = await one<{ id: string }>(
          pool,
          `SELECT id FROM rescore_jobs WHERE form_id = $1 AND environment = $2 AND status IN ('queued','running')`,
          [job.form_id, environment],
        );
        if (!active) throw error;
        return { activeId: active.id };
      }
    },
    async get({ workspaceId, environment }, id) {
      const row = await one<RescoreJobRow>(pool, 'SELECT * FROM rescore_jobs WHERE id = $1 AND workspace_id = $2 AND environment = $3', [
        id,
        workspaceId,
        environment,
      ]);
      return row && toRescoreJob(row);
    },
    async claim(owner, now, leaseUntil) {
      const row = await one<RescoreJobRow>(
        pool,
        `UPDATE rescore_jobs SET status = 'running', lease_owner = $1, lease_until = $2, started_at = COALESCE(started_at, $3)
         WHERE id = (
           SELECT id FROM rescore_jobs WHERE status = 'queued' OR (status = 'running' AND lease_until < $3)
           ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [owner, leaseUntil, now],
      );
      return row && toClaimedRescoreJob(row);
    },
    async candidates({ job, environment }, cursor, limit) {
      // Newest first on the form's list index, from the cursor down; nothing created after the job.
      const rows =
        cursor === null
          ? await all<RescoreCandidateRow>(
              pool,
              `SELECT ${candidateColumns} FROM submissions WHERE form_id = $1 AND environment = $2 AND created_at <= $3
               ORDER BY created_at DESC, id DESC LIMIT $4`,
              [job.form_id, environment, job.created_at, limit],
            )
          : await all<RescoreCandidateRow>(
              pool,
              `SELECT ${candidateColumns} FROM submissions WHERE form_id = $1 AND environment = $2 AND (created_at, id) < ($3, $4)
               ORDER BY created_at DESC, id DESC LIMIT $5`,
              [job.form_id, environment, cursor.createdAt, cursor.id, limit],
            );
      return rows.map(toRescoreCandidate);
    },
    async applyBatch(jobId, owner, { updates, cursor }, leaseUntil) {
      return inTransaction(pool, async (client) => {
        const job = await one<Pick<RescoreJobRow, 'environment'>>(
          client,
          `SELECT environment FROM rescore_jobs WHERE id = $1 AND status = 'running' AND lease_owner = $2 FOR UPDATE`,
          [jobId, owner],
        );
        if (!job) return false;
        let changed = 0;
        // In id order by bytes, as the erasure locks them (COLLATE "C"), so the two take the submission rows in the
        // same order (their aggregate changes are appended rows, which lock nothing).
        const ordered = [...updates].sort((a, b) => (a.candidate.id < b.candidate.id ? -1 : 1));
        for (const { candidate, rescore } of ordered) {
          // A submission changed since the batch read it (deleted, rescored, answered) keeps what it has now.
          const applied = await run(
            client,
            `UPDATE submissions SET score = $1, grade = $2, score_breakdown = $3, form_version = $4, scored_at = $5, updated_at = $5
             WHERE id = $6 AND updated_at = $7`,
            [
              rescore.score,
              rescore.grade,
              JSON.stringify(rescore.scoreBreakdown),
              rescore.formVersion,
              rescore.at,
              candidate.id,
              candidate.updated_at,
            ],
          );
          if (applied === 0 || !scoreChanged(candidate, rescore)) continue;
          await moveScore(client, job.environment, candidate, rescore);
          changed++;
        }
        await run(
          client,
          `UPDATE rescore_jobs SET processed = processed + $1, changed = changed + $2, cursor_created_at = $3, cursor_id = $4, lease_until = $5
           WHERE id = $6`,
          [updates.length, changed, cursor.createdAt, cursor.id, leaseUntil, jobId],
        );
        return true;
      });
    },
    async finish(jobId, owner, { status, at, failureMessage }) {
      await run(
        pool,
        `UPDATE rescore_jobs SET status = $1, finished_at = $2, failure_message = $3, lease_owner = NULL, lease_until = NULL
         WHERE id = $4 AND lease_owner = $5 AND status = 'running'`,
        [status, at, failureMessage, jobId, owner],
      );
    },
  };
}
