import type pg from 'pg';
import type { Environment } from '../../contract.js';
import { RecordNotFound } from '../errors.js';
import type { PageRequest } from '../page.js';
import {
  type FunnelFacts,
  gradeOfKey,
  insertedColumns,
  insertedValues,
  orderBounds,
  resumedColumns,
  type SubmissionRow,
  sourceBreakdown,
  sourceGroups,
  submissionRowColumns,
  toSubmission,
  toSubmissionRecord,
} from '../rows/submissions.js';
import { defaultSearchScan, inOrderOf, type SearchCandidate, scanForMatches } from '../search-scan.js';
import {
  type FunnelTotals,
  listedEmailAnswers,
  newestFirst,
  type SubmissionPartition,
  type SubmissionRecord,
  type SubmissionStore,
} from '../submission-store.js';
import { appendDeltas, creationDelta, foldAggregateDeltas, funnelDelta, mergedAggregates, scoreDeltas } from './aggregate-deltas.js';
import { insertAuditEvent } from './audit-events.js';
import { all, inTransaction, one, Parameters, type Queryable, run } from './database.js';
import { eraseReplays, eraseReplaysOf } from './idempotency.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { normalisedEmail } from './schema/submission-emails.js';
import { CreateBatches, runningPerProcess } from './submission-create.js';
import { indexSubmissionEmails, insertSubmissionEmails } from './submission-emails.js';

/** Statements that delete a form's rows of this module (parameter: the form id), run inside the form's cascade. */
export const submissionFormCascade: string[] = [
  // First, while the submissions are there to name them: a retried create must not answer with deleted answers.
  eraseReplaysOf('SELECT id FROM submissions WHERE form_id = $1'),
  'DELETE FROM rescore_jobs WHERE form_id = $1',
  'DELETE FROM submission_emails WHERE form_id = $1',
  // Before the day rows: a fold that took some of these commits first, and the deletes below then see what it added.
  'DELETE FROM submission_aggregate_deltas WHERE form_id = $1',
  'DELETE FROM submission_source_days WHERE form_id = $1',
  'DELETE FROM submission_grade_days WHERE form_id = $1',
  'DELETE FROM submission_step_days WHERE form_id = $1',
  'DELETE FROM submission_days WHERE form_id = $1',
  'DELETE FROM submissions WHERE form_id = $1',
];

/**
 * Statements that move a transferred form's rows (parameters: new workspace id, form id). Aggregates and their
 * pending deltas are keyed by form and need no move; a delta's usage month stays with the workspace that received
 * the submission, as the counter it would have been added to directly.
 */
export const submissionFormTransfer: string[] = [
  'UPDATE submissions SET workspace_id = $1 WHERE form_id = $2',
  'UPDATE submission_emails SET workspace_id = $1 WHERE form_id = $2',
  'UPDATE rescore_jobs SET workspace_id = $1 WHERE form_id = $2',
];

/** Test-mode rows of a workspace (parameter: workspace id), with the count they report; before the forms go. */
export const submissionTestData: Array<{ counts: 'submissions' | null; sql: string }> = [
  ...['submission_aggregate_deltas', 'submission_source_days', 'submission_grade_days', 'submission_step_days', 'submission_days'].map(
    (table) => ({
      counts: null,
      sql: `DELETE FROM ${table} WHERE environment = 'test' AND form_id IN (SELECT id FROM forms WHERE workspace_id = $1)`,
    }),
  ),
  { counts: null, sql: eraseReplaysOf(`SELECT id FROM submissions WHERE workspace_id = $1 AND environment = 'test'`) },
  { counts: null, sql: `DELETE FROM rescore_jobs WHERE workspace_id = $1 AND environment = 'test'` },
  { counts: null, sql: `DELETE FROM submission_emails WHERE workspace_id = $1 AND environment = 'test'` },
  { counts: 'submissions', sql: `DELETE FROM submissions WHERE workspace_id = $1 AND environment = 'test'` },
];

const insertedPlaceholders = insertedColumns
  .split(', ')
  .map((_, index) => `$${index + 1}`)
  .join(', ');

/**
 * Inserts one submission with its aggregate delta (and, for a live one, its usage count); the caller provides the
 * transaction.
 */
export async function insertSubmissionRow(db: Queryable, record: SubmissionRecord): Promise<void> {
  await run(db, `INSERT INTO submissions (${insertedColumns}) VALUES (${insertedPlaceholders})`, insertedValues(record));
  await appendDeltas(db, [creationDelta(record)]);
  await insertSubmissionEmails(db, record.submission.id, listedEmailAnswers(record, record.emailAnswers));
}

/**
 * The partition's submission, locked until the transaction ends, so a concurrent delete or rescore waits and then
 * sees it gone or changed. One the partition no longer holds (deleted, or moved with its form by a transfer: the
 * predicate is checked again on the row as a committed accept left it) is not found.
 */
async function ownedRow(db: Queryable, { workspaceId, environment }: SubmissionPartition, id: string): Promise<SubmissionRow> {
  const row = await one<SubmissionRow>(
    db,
    'SELECT * FROM submissions WHERE id = $1 AND workspace_id = $2 AND environment = $3 FOR UPDATE',
    [id, workspaceId, environment],
  );
  if (!row) throw new RecordNotFound('submission', id);
  return row;
}

/**
 * A submission is written only while its form is in the submission's workspace. The form's row is held shared
 * until the insert commits: a transfer's accept or a delete (which lock it) waits for the insert and then moves or
 * deletes its row too, and an insert that comes after them waits, sees the form gone from the workspace, and is
 * not found. (The foreign key alone would let it in with the old workspace, or fail with 23503.)
 */
async function assertFormOwned(db: Queryable, record: SubmissionRecord): Promise<void> {
  const formId = record.submission.form_id;
  if (!(await one(db, 'SELECT 1 FROM forms WHERE id = $1 AND workspace_id = $2 FOR SHARE', [formId, record.workspaceId])))
    throw new RecordNotFound('form', formId);
}

/** `processes`: how many server processes share the database (`WORKERS`); they share its create statements. */
export function postgresSubmissions(pool: pg.Pool, processes = 1): SubmissionStore {
  const creates = new CreateBatches(pool, runningPerProcess(processes));
  return {
    async insert(record, outbox) {
      const listed = listedEmailAnswers(record, record.emailAnswers);
      if (listed !== undefined) return creates.create({ record, listed, entries: outbox?.() ?? {} });
      // Without named answers the email index is derived from the stored row, which the one-statement create
      // cannot read back (its parts do not see each other's rows): these take the transaction.
      await withOutbox(pool, outbox, async (client) => {
        await assertFormOwned(client, record);
        await insertSubmissionRow(client, record);
      });
    },
    async list({ workspaceId, environment, attachment }, filter, page, order = newestFirst, scan = defaultSearchScan) {
      const params = new Parameters();
      const where: string[] = [];
      const formId = filter.formId ?? (attachment.type === 'form' ? attachment.form_id : undefined);
      // A form's list walks the form's own index; the workspace condition still guards the partition.
      if (formId !== undefined) where.push(`s.form_id = ${params.add(formId)}`);
      where.push(`s.workspace_id = ${params.add(workspaceId)}`, `s.environment = ${params.add(environment)}`);
      if (attachment.type === 'form' && formId !== attachment.form_id) where.push(`s.form_id = ${params.add(attachment.form_id)}`);
      if (attachment.type === 'folder')
        where.push(`s.form_id IN (SELECT f.id FROM forms f WHERE f.folder_id = ${params.add(attachment.folder_id)})`);
      if (filter.status !== undefined) where.push(`s.status = ${params.add(filter.status)}`);
      // Bounds on the order's column go to the keyset page, which ranges the index from the cursor with them.
      const bounds = orderBounds(order.key, filter);
      if (order.key !== 'created_at') {
        if (filter.createdGte !== undefined) where.push(`s.created_at >= ${params.add(filter.createdGte)}`);
        if (filter.createdLt !== undefined) where.push(`s.created_at < ${params.add(filter.createdLt)}`);
      }
      if (order.key !== 'score') {
        if (filter.minScore !== undefined) where.push(`s.score >= ${params.add(filter.minScore)}`);
        if (filter.maxScore !== undefined) where.push(`s.score <= ${params.add(filter.maxScore)}`);
      }
      if (filter.updatedGte !== undefined) where.push(`s.updated_at >= ${params.add(filter.updatedGte)}`);
      // Checks on the ordered scan, like `status`: no index serves them (see docs/internals/list-filters.md).
      if (filter.updatedLt !== undefined) where.push(`s.updated_at < ${params.add(filter.updatedLt)}`);
      if (filter.completedGte !== undefined) where.push(`s.completed_at >= ${params.add(filter.completedGte)}`);
      if (filter.completedLt !== undefined) where.push(`s.completed_at < ${params.add(filter.completedLt)}`);
      if (filter.metadata !== undefined) where.push(`s.metadata @> ${params.add(JSON.stringify(filter.metadata))}::jsonb`);
      const grades = filter.grades ?? [];
      if (grades.length === 1) where.push(`s.grade = ${params.add(grades[0])}`);
      else if (grades.length > 1) where.push(`s.grade = ANY(${params.add(grades)}::text[])`);
      if (filter.utmSource !== undefined) where.push(`s.utm_source = ${params.add(filter.utmSource)}`);
      const read = <Row>(select: string, request: PageRequest) => {
        // Each read numbers its own placeholders after the list's.
        const own = new Parameters();
        own.values.push(...params.values);
        return keysetPage<Row>(pool, {
          from: 'submissions s',
          alias: 's',
          select,
          where: where.join(' AND '),
          params: own,
          page: request,
          order: {
            column: order.key,
            type: order.key === 'score' ? 'integer' : 'timestamptz',
            direction: order.direction === 'desc' ? 'DESC' : 'ASC',
          },
          bounds,
        });
      };
      if (filter.search === undefined) {
        const result = await read<SubmissionRow>(submissionRowColumns('s'), page);
        return { data: result.data.map(toSubmission), hasMore: result.hasMore };
      }
      // The search text is compared in JS, literally (as strpos would), on windows of the list without it.
      const found = await scanForMatches(
        page,
        filter.search,
        scan,
        (request) => read<SearchCandidate>(`s.id AS id, s.${order.key} AS key, s.search_text AS search_text`, request),
        async (id) => (await one<{ search_text: string }>(pool, 'SELECT search_text FROM submissions WHERE id = $1', [id]))?.search_text,
      );
      const rows = await all<SubmissionRow>(pool, `SELECT ${submissionRowColumns()} FROM submissions WHERE id = ANY($1::text[])`, [
        found.data,
      ]);
      return { data: inOrderOf(found.data, rows).map(toSubmission), hasMore: found.hasMore };
    },
    async get({ workspaceId, environment }, id) {
      const row = await one<SubmissionRow>(
        pool,
        `SELECT ${submissionRowColumns()} FROM submissions WHERE id = $1 AND workspace_id = $2 AND environment = $3`,
        [id, workspaceId, environment],
      );
      return row && toSubmissionRecord(row);
    },
    async delete(partition, id, outbox) {
      await withOutbox(pool, outbox, async (client) => {
        await deleteSubmissionRow(client, await ownedRow(client, partition, id));
        // A retry of the create must not answer with the deleted answers. The moment only marks the key.
        await eraseReplays(client, id, new Date().toISOString());
      });
    },
    async erase({ workspaceId, environment }, email, audit, outbox) {
      const erased = await withOutbox(pool, outbox, async (client) => {
        // Locked in id order, so an erasure and a concurrent delete or rescore meet on their first common row rather
        // than each holding a row the other wants. The order is the bytes' (COLLATE "C"), the one a rescore batch
        // sorts by in JavaScript: under the database's own collation (en_US sorts `sub_b` before `sub_C`) the two
        // would lock in different orders. (The aggregate changes both make are appended rows, which lock nothing.)
        // The partition is also checked on the submission
        // itself, which a lock wait checks again: one a transfer moved meanwhile is no longer this partition's to erase.
        const rows = await all<SubmissionRow>(
          client,
          `SELECT s.* FROM submissions s WHERE s.id IN (
             SELECT e.submission_id FROM submission_emails e
             WHERE e.workspace_id = $1 AND e.environment = $2 AND e.email = ${normalisedEmail('$3::text')})
             AND s.workspace_id = $1 AND s.environment = $2
           ORDER BY s.id COLLATE "C" FOR UPDATE`,
          [workspaceId, environment, email],
        );
        let canceledDeliveries = 0;
        for (const row of rows) {
          await deleteSubmissionRow(client, row);
          canceledDeliveries += await run(
            client,
            `DELETE FROM deliveries WHERE status = 'pending' AND event_id IN (SELECT id FROM events WHERE submission_id = $1)`,
            [row.id],
          );
          await run(client, 'DELETE FROM events WHERE submission_id = $1', [row.id]);
        }
        // Already in id order (the lock order above).
        const erased = rows.map((row) => ({ id: row.id, formId: row.form_id }));
        const result = { deletedSubmissions: rows.length, canceledDeliveries, erased };
        const event = audit(result);
        for (const row of rows) await eraseReplays(client, row.id, event.at);
        await insertAuditEvent(client, event);
        return result;
      });
      // The pending aggregate changes of the erased submissions hold their UTM sources, the respondents' text, until
      // folded: folded at once rather than at the next periodic fold. A fold that fails, or that another process is
      // running, leaves them to that one (within a second).
      await foldAggregateDeltas(pool).catch(() => 0);
      return erased;
    },
    async rescore(partition, id, change, outbox) {
      return withOutbox(pool, outbox, async (client) => {
        const row = await ownedRow(client, partition, id);
        const before = toSubmission(row);
        await moveScore(client, row.environment, before, change);
        const updated = await one<SubmissionRow>(
          client,
          `UPDATE submissions SET score = $1, grade = $2, score_breakdown = $3, form_version = $4, scored_at = $5, updated_at = $5
           WHERE id = $6 RETURNING *`,
          [change.score, change.grade, JSON.stringify(change.scoreBreakdown), change.formVersion, change.at, id],
        );
        return {
          submission: toSubmission(updated!),
          previous: { score: before.score, grade: before.grade, form_version: before.form_version },
        };
      });
    },
    async resume(partition, id, change, outbox) {
      return withOutbox(pool, outbox, async (client) => {
        const row = await ownedRow(client, partition, id);
        const previous = toSubmission(row);
        const { submission: next, searchText, emailAnswers } = change(previous);
        const updated = await one<SubmissionRow>(
          client,
          `UPDATE submissions SET status = $1, answers = $2, hidden = $3, visited_steps = $4, score = $5, grade = $6, score_breakdown = $7,
             metadata = $8, completed_at = $9, form_version = $10, scored_at = $11, updated_at = $12, search_text = $13
           WHERE id = $14 RETURNING *`,
          [...resumedColumns(next), searchText, id],
        );
        await indexSubmissionEmails(
          client,
          id,
          listedEmailAnswers({ workspaceId: row.workspace_id, environment: row.environment, submission: previous }, emailAnswers),
        );
        await appendDeltas(client, [funnelDelta(row.environment, previous, -1), funnelDelta(row.environment, next, 1)]);
        return { submission: toSubmission(updated!), previous };
      });
    },
    async updateMetadata(partition, id, change) {
      return inTransaction(pool, async (client) => {
        const next = change(toSubmission(await ownedRow(client, partition, id)));
        const updated = await one<SubmissionRow>(
          client,
          'UPDATE submissions SET metadata = $1, updated_at = $2 WHERE id = $3 RETURNING *',
          [JSON.stringify(next.metadata), next.updated_at, id],
        );
        return toSubmission(updated!);
      });
    },
    async funnel({ formId, environment, from, to, topSources }) {
      const range = [formId, environment, from, to];
      const inRange = 'form_id = $1 AND environment = $2 AND day >= $3 AND day <= $4';
      // One snapshot for the tables and their pending deltas, as the SQLite store's read transaction gives.
      return inTransaction(pool, async (client): Promise<FunnelTotals> => {
        await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const days = await all<FunnelTotals['days'][number]>(
          client,
          `SELECT day, SUM(started) AS started, SUM(completed) AS completed, SUM(score_sum)::bigint AS "scoreSum", SUM(score_count) AS "scoreCount"
           FROM ${mergedAggregates.submission_days} a WHERE ${inRange} GROUP BY day ORDER BY day`,
          range,
        );
        const steps = await all<FunnelTotals['steps'][number]>(
          client,
          `SELECT step_id AS "stepId", SUM(reached) AS reached, SUM(dropped_off) AS "droppedOff" FROM ${mergedAggregates.submission_step_days} a
           WHERE ${inRange} GROUP BY step_id ORDER BY step_id COLLATE "C"`,
          range,
        );
        const grades = await all<{ grade: string; completed: number }>(
          client,
          `SELECT grade, SUM(completed) AS completed FROM ${mergedAggregates.submission_grade_days} a WHERE ${inRange} GROUP BY grade ORDER BY grade COLLATE "C"`,
          range,
        );
        const sources = `${mergedAggregates.submission_source_days} a`;
        const top = await all<{ source: string; started: number; completed: number }>(
          client,
          `${sourceGroups(inRange, sources)} ORDER BY SUM(started) DESC, utm_source COLLATE "C" LIMIT $5`,
          [...range, topSources],
        );
        const sums = await one<{ sources: number; started: number; completed: number }>(
          client,
          `SELECT COUNT(*) AS sources, COALESCE(SUM(started), 0) AS started, COALESCE(SUM(completed), 0) AS completed FROM (${sourceGroups(inRange, sources)}) g`,
          range,
        );
        return {
          days,
          steps,
          grades: grades.map((row) => ({ grade: gradeOfKey(row.grade), completed: row.completed })),
          sources: sourceBreakdown(top, sums!),
        };
      });
    },
  };
}

/** Moves a completed submission's aggregates from its stored score and grade to new ones (a rescore). */
export async function moveScore(
  db: Queryable,
  environment: Environment,
  before: Pick<FunnelFacts, 'form_id' | 'status' | 'score' | 'grade' | 'created_at'>,
  after: { score: number; grade: string | null },
): Promise<void> {
  if (before.status !== 'completed') return;
  await appendDeltas(db, scoreDeltas(environment, before, after));
}

/** Deletes one locked submission, its index entries and its share of the aggregates, inside the caller's transaction. */
async function deleteSubmissionRow(db: Queryable, row: SubmissionRow): Promise<void> {
  await appendDeltas(db, [funnelDelta(row.environment, toSubmission(row), -1)]);
  await run(db, 'DELETE FROM submission_emails WHERE submission_id = $1', [row.id]);
  await run(db, 'DELETE FROM submissions WHERE id = $1', [row.id]);
}
