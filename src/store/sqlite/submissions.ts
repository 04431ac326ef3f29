import type Database from 'better-sqlite3';
import type { Environment, Schema } from '../../contract.js';
import { deepFreeze } from '../../frozen.js';
import { RecordNotFound } from '../errors.js';
import type { PageRequest } from '../page.js';
import {
  dayOf,
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
import { defaultSearchScan, type SearchCandidate, scanForMatches } from '../search-scan.js';
import {
  type FunnelTotals,
  listedEmailAnswers,
  newestFirst,
  type SubmissionPartition,
  type SubmissionRecord,
  type SubmissionStore,
} from '../submission-store.js';
import { insertAuditEvent } from './audit-events.js';
import { FunnelTally } from './funnel-tally.js';
import type { GroupCommit } from './group-commit.js';
import { eraseReplays, eraseReplaysOf } from './idempotency.js';
import { metadataHolds } from './metadata.js';
import { withOutbox, writeOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { type RowsWithIds, rowCaches } from './row-cache.js';
import { normalisedEmail } from './schema/submission-emails.js';
import { statement, transaction } from './statements.js';
import { indexSubmissionEmails, insertSubmissionEmails } from './submission-emails.js';

/** Statements that delete a form's rows of this module (parameter: the form id), run inside the form's cascade. */
export const submissionFormCascade: string[] = [
  // First, while the submissions are there to name them: a retried create must not answer with deleted answers.
  eraseReplaysOf('SELECT id FROM submissions WHERE form_id = ?'),
  'DELETE FROM rescore_jobs WHERE form_id = ?',
  'DELETE FROM submission_emails WHERE form_id = ?',
  'DELETE FROM submission_source_days WHERE form_id = ?',
  'DELETE FROM submission_grade_days WHERE form_id = ?',
  'DELETE FROM submission_step_days WHERE form_id = ?',
  'DELETE FROM submission_days WHERE form_id = ?',
  'DELETE FROM submissions WHERE form_id = ?',
];

/**
 * Statements that move a transferred form's rows (parameters: new workspace id, form id). Aggregates are keyed by
 * form and need no move.
 */
export const submissionFormTransfer: string[] = [
  'UPDATE submissions SET workspace_id = ? WHERE form_id = ?',
  'UPDATE submission_emails SET workspace_id = ? WHERE form_id = ?',
  'UPDATE rescore_jobs SET workspace_id = ? WHERE form_id = ?',
];

/**
 * Test-mode rows of a workspace (parameter: workspace id), with the count they report. Aggregates are found
 * through the workspace's forms, which the reset deletes only after these statements.
 */
export const submissionTestData: Array<{ counts: 'submissions' | null; sql: string }> = [
  ...['submission_source_days', 'submission_grade_days', 'submission_step_days', 'submission_days'].map((table) => ({
    counts: null,
    sql: `DELETE FROM ${table} WHERE environment = 'test' AND form_id IN (SELECT id FROM forms WHERE workspace_id = ?)`,
  })),
  { counts: null, sql: eraseReplaysOf(`SELECT id FROM submissions WHERE workspace_id = ? AND environment = 'test'`) },
  { counts: null, sql: `DELETE FROM rescore_jobs WHERE workspace_id = ? AND environment = 'test'` },
  { counts: null, sql: `DELETE FROM submission_emails WHERE workspace_id = ? AND environment = 'test'` },
  { counts: 'submissions', sql: `DELETE FROM submissions WHERE workspace_id = ? AND environment = 'test'` },
];

/** Adds (sign 1) or removes (sign -1) one submission from its form's aggregates, now. */
function countInFunnel(db: Database.Database, environment: Environment, facts: FunnelFacts, sign: 1 | -1): void {
  new FunnelTally().count(environment, facts, sign).write(db);
}

/** Moves a completed submission's aggregates from its stored score and grade to new ones (a rescore). */
export function moveScore(
  db: Database.Database,
  environment: Environment,
  before: Pick<FunnelFacts, 'form_id' | 'status' | 'score' | 'grade' | 'created_at'>,
  after: { score: number; grade: string | null },
): void {
  if (before.status !== 'completed') return;
  statement(db, 'UPDATE submission_days SET score_sum = score_sum + ? WHERE form_id = ? AND environment = ? AND day = ?').run(
    after.score - before.score,
    before.form_id,
    environment,
    dayOf(before.created_at),
  );
  countGrade(db, environment, before, before.grade, -1);
  countGrade(db, environment, before, after.grade, 1);
}

/** Deletes one submission, its index entries and its share of the aggregates; the caller provides the transaction. */
function deleteSubmissionRow(db: Database.Database, row: SubmissionRow): void {
  countInFunnel(db, row.environment, toSubmission(row), -1);
  statement(db, 'DELETE FROM submission_emails WHERE submission_id = ?').run(row.id);
  statement(db, 'DELETE FROM submissions WHERE id = ?').run(row.id);
}

function countGrade(
  db: Database.Database,
  environment: Environment,
  facts: Pick<FunnelFacts, 'form_id' | 'created_at'>,
  grade: string | null,
  sign: 1 | -1,
): void {
  new FunnelTally().countGrade(environment, facts, grade, sign).write(db);
}

const insertSubmissionSql = `INSERT INTO submissions (${insertedColumns}) VALUES (${insertedColumns
  .split(', ')
  .map(() => '?')
  .join(', ')})`;

/**
 * Inserts one submission with its aggregates; the caller provides the transaction. Exported for bulk loads
 * (the benchmark seeds a million rows in batches of one transaction each).
 */
export function insertSubmissionRow(db: Database.Database, record: SubmissionRecord): void {
  insertSubmissionRowOnly(db, record);
  countInFunnel(db, record.environment, record.submission, 1);
}

/** The row and its email index entries, without the aggregates. */
function insertSubmissionRowOnly(db: Database.Database, record: SubmissionRecord): void {
  statement(db, insertSubmissionSql).run(...insertedValues(record));
  insertSubmissionEmails(db, record.submission.id, listedEmailAnswers(record, record.emailAnswers));
}

type SourceRow = { source: string; started: number; completed: number };

const getRow = (db: Database.Database, id: string) =>
  statement(db, 'SELECT * FROM submissions WHERE id = ?').get(id) as SubmissionRow | undefined;

/**
 * The partition's submission, read inside the write's transaction: one the partition no longer holds (deleted, or
 * moved with its form by a transfer accepted since the caller read it) is not found.
 */
function ownedRow(db: Database.Database, { workspaceId, environment }: SubmissionPartition, id: string): SubmissionRow {
  const row = statement(db, 'SELECT * FROM submissions WHERE id = ? AND workspace_id = ? AND environment = ?').get(
    id,
    workspaceId,
    environment,
  ) as SubmissionRow | undefined;
  if (!row) throw new RecordNotFound('submission', id);
  return row;
}

/**
 * A submission is written only while its form is in the submission's workspace: the check runs in the insert's
 * transaction, so a form deleted or moved since the caller read it is not found rather than given a row it does not own.
 */
function assertFormOwned(db: Database.Database, record: SubmissionRecord): void {
  const formId = record.submission.form_id;
  if (!statement(db, 'SELECT 1 FROM forms WHERE id = ? AND workspace_id = ?').get(formId, record.workspaceId))
    throw new RecordNotFound('form', formId);
}

/**
 * How many rows changed since `updated_gte` the list still reads through the updated_at index and sorts; the
 * count is probed through the same index, so the probe too reads at most this many entries.
 */
export const changedSinceSortCap = 10_000;

/**
 * Whether at most `changedSinceSortCap` rows of the partition changed since `since`. More than that are at least
 * that dense among the partition's rows, so the ordered scan meets one every (rows / cap) rows or sooner.
 */
function changedSinceFew(
  db: Database.Database,
  partition: { workspaceId: string; environment: Environment; formId: string | undefined },
  since: string,
): boolean {
  const { workspaceId, environment, formId } = partition;
  const [column, value] = formId === undefined ? ['workspace_id', workspaceId] : ['form_id', formId];
  const { changed } = statement(
    db,
    `SELECT count(*) AS changed FROM (SELECT 1 FROM submissions WHERE ${column} = ? AND environment = ? AND updated_at >= ? LIMIT ?)`,
  ).get(value, environment, since, changedSinceSortCap + 1) as { changed: number };
  return changed <= changedSinceSortCap;
}

/**
 * How many submissions a list keeps in memory (row-cache.ts), and how much of their stored JSON text they may
 * hold together (a submission's answers may be large). A page of a list reads its rows' ids and takes the
 * submissions it already knows from here; a dashboard polling the newest page decodes only what is new.
 */
const cachedSubmissions = { rows: 10_000, weight: 32 * 1024 * 1024 };

type ListedSubmission = { submission: Schema<'Submission'>; textLength: number };

/** The stored JSON text of a row: what decoding it costs, and roughly what its decoded submission holds. */
const jsonTextLength = (row: SubmissionRow): number =>
  [row.answers, row.hidden, row.visited_steps, row.score_breakdown, row.context, row.metadata].reduce<number>(
    (length, column) => length + (typeof column === 'string' ? column.length : 0),
    0,
  );

export function sqliteSubmissions(db: Database.Database, grouped: GroupCommit): SubmissionStore {
  const listed = rowCaches(db).createById<ListedSubmission>('submissions', {
    ...cachedSubmissions,
    weigh: (cached) => cached.textLength,
  });
  /** The submissions with these ids, in their order, shared and frozen; an id no longer stored is left out. */
  const submissionsById = (rows: RowsWithIds<ListedSubmission>, ids: readonly string[]): Array<Schema<'Submission'>> =>
    rows(ids, (missing) => {
      const found = statement(db, `SELECT ${submissionRowColumns()} FROM submissions WHERE id IN (SELECT value FROM json_each(?))`).all(
        JSON.stringify(missing),
      ) as SubmissionRow[];
      return new Map(found.map((row) => [row.id, deepFreeze({ submission: toSubmission(row), textLength: jsonTextLength(row) })]));
    }).map((cached) => cached.submission);
  // The aggregates and usage counts of a group of creates, written once per row at the end of the group.
  const tally = new FunnelTally();
  grouped.atEndOfGroup({ write: () => tally.write(db), discard: () => tally.discard() });
  return {
    // The hot write path (public forms submit here): creates that arrive together commit together.
    async insert(record, outbox) {
      await grouped.run(
        // The group runs its changes in a savepoint (rolled back, and each change run again alone, when one fails),
        // so the row, its events and the response commit together or not at all without one of withOutbox's.
        () => {
          assertFormOwned(db, record);
          insertSubmissionRowOnly(db, record);
          if (outbox) writeOutbox(db, outbox());
        },
        // Counted once the create is part of the group: a create that fails counts nothing.
        () => {
          tally.count(record.environment, record.submission, 1);
          if (record.environment === 'live') tally.countUsage(record.workspaceId, record.submission.created_at.slice(0, 7));
        },
      );
    },
    async list({ workspaceId, environment, attachment }, filter, page, order = newestFirst, scan = defaultSearchScan) {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (condition: string, ...values: unknown[]) => {
        where.push(condition);
        params.push(...values);
      };
      const formId = filter.formId ?? (attachment.type === 'form' ? attachment.form_id : undefined);
      if (formId === undefined) {
        add('s.workspace_id = ? AND s.environment = ?', workspaceId, environment);
      } else {
        // `+` keeps the planner off the workspace index, so a form's list walks the form's own index.
        add('s.form_id = ? AND s.environment = ? AND +s.workspace_id = ?', formId, environment, workspaceId);
      }
      if (attachment.type === 'form' && formId !== attachment.form_id) add('s.form_id = ?', attachment.form_id);
      if (attachment.type === 'folder') add('s.form_id IN (SELECT f.id FROM forms f WHERE f.folder_id = ?)', attachment.folder_id);
      // Bounds on the order's column go to the keyset page as an index range. A range on the other column would
      // tempt the planner into reading that range and sorting it, which costs every match however deep the
      // page; `+` keeps it a check on the ordered scan.
      const bounds = orderBounds(order.key, filter);
      if (filter.status !== undefined) add('s.status = ?', filter.status);
      if (order.key !== 'created_at') {
        if (filter.createdGte !== undefined) add('+s.created_at >= ?', filter.createdGte);
        if (filter.createdLt !== undefined) add('+s.created_at < ?', filter.createdLt);
      }
      if (order.key !== 'score') {
        if (filter.minScore !== undefined) add('+s.score >= ?', filter.minScore);
        if (filter.maxScore !== undefined) add('+s.score <= ?', filter.maxScore);
      }
      // Few changed rows (a sync's usual question): read them through the updated_at index and sort them, at
      // most `changedSinceSortCap`. Many: they are dense in the ordered scan, which checks them on the way.
      const fewChanged = filter.updatedGte !== undefined && changedSinceFew(db, { workspaceId, environment, formId }, filter.updatedGte);
      if (filter.updatedGte !== undefined) add(`${fewChanged ? '' : '+'}s.updated_at >= ?`, filter.updatedGte);
      // Checks on the ordered scan, like `status`: no index serves them (see docs/internals/list-filters.md).
      if (filter.updatedLt !== undefined) add('+s.updated_at < ?', filter.updatedLt);
      if (filter.completedGte !== undefined) add('+s.completed_at >= ?', filter.completedGte);
      if (filter.completedLt !== undefined) add('+s.completed_at < ?', filter.completedLt);
      for (const [key, value] of Object.entries(filter.metadata ?? {})) add(metadataHolds('s'), key, value);
      const grades = filter.grades ?? [];
      // One grade walks its own (grade, key, id) index in order. Several would make the planner read each
      // grade's range and sort them all; `+` keeps it on the order's index, checking the grade on the way.
      if (grades.length === 1) add('s.grade = ?', grades[0]);
      else if (grades.length > 1) add(`+s.grade IN (${grades.map(() => '?').join(', ')})`, ...grades);
      // The utm_source index ends in created_at: under a score order it is a check, not the scan.
      if (filter.utmSource !== undefined) add(`${order.key === 'score' ? '+' : ''}s.utm_source = ?`, filter.utmSource);
      const read = <Row>(select: string, request: PageRequest) =>
        keysetPage<Row>(db, {
          from: fewChanged
            ? `submissions s INDEXED BY ${formId === undefined ? 'submissions_updated' : 'submissions_form_updated'}`
            : 'submissions s',
          alias: 's',
          select,
          where: where.join(' AND '),
          params,
          page: request,
          order: { column: order.key, direction: order.direction === 'desc' ? 'DESC' : 'ASC' },
          bounds,
        });
      if (filter.search === undefined) {
        // The page's ids, then its submissions, from memory where known: one read transaction, so both are of
        // the same moment (the cache is checked against what the ids were read from).
        return listed.read((rows) => {
          const result = read<{ id: string }>('s.id AS id', page);
          return {
            data: submissionsById(
              rows,
              result.data.map((row) => row.id),
            ),
            hasMore: result.hasMore,
          };
        });
      }
      // The search text is compared in JS, literally (as instr would), on windows of the list without it.
      const found = await scanForMatches(
        page,
        filter.search,
        scan,
        async (request) => read<SearchCandidate>(`s.id AS id, s.${order.key} AS key, s.search_text AS search_text`, request),
        async (id) =>
          (statement(db, 'SELECT search_text FROM submissions WHERE id = ?').get(id) as { search_text: string } | undefined)?.search_text,
      );
      // Read as they are now: one deleted since the scan found it is left out.
      return { data: listed.read((rows) => submissionsById(rows, found.data)), hasMore: found.hasMore };
    },
    async get({ workspaceId, environment }, id) {
      const row = statement(
        db,
        `SELECT ${submissionRowColumns()} FROM submissions WHERE id = ? AND workspace_id = ? AND environment = ?`,
      ).get(id, workspaceId, environment) as SubmissionRow | undefined;
      return row && toSubmissionRecord(row);
    },
    async delete(partition, id, outbox) {
      return withOutbox(db, outbox, () => {
        deleteSubmissionRow(db, ownedRow(db, partition, id));
        // A retry of the create must not answer with the deleted answers. The moment only marks the key.
        eraseReplays(db, id, new Date().toISOString());
      });
    },
    async erase({ workspaceId, environment }, email, audit, outbox) {
      // Deleted rows otherwise stay readable in the file's free space until reused: erased content is zeroed as it
      // is deleted. Only here, since it makes every page a deletion touches be written whole.
      db.pragma('secure_delete = ON');
      try {
        return withOutbox(db, outbox, () => {
          const rows = statement(
            db,
            `SELECT s.* FROM submission_emails e JOIN submissions s ON s.id = e.submission_id
           WHERE e.workspace_id = ? AND e.environment = ? AND e.email = ${normalisedEmail('?')}`,
          ).all(workspaceId, environment, email) as SubmissionRow[];
          let canceledDeliveries = 0;
          for (const row of rows) {
            deleteSubmissionRow(db, row);
            canceledDeliveries += statement(
              db,
              `DELETE FROM deliveries WHERE status = 'pending' AND event_id IN (SELECT id FROM events WHERE submission_id = ?)`,
            ).run(row.id).changes;
            statement(db, 'DELETE FROM events WHERE submission_id = ?').run(row.id);
          }
          const erased = rows.map((row) => ({ id: row.id, formId: row.form_id })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
          const result = { deletedSubmissions: rows.length, canceledDeliveries, erased };
          const event = audit(result);
          for (const row of rows) eraseReplays(db, row.id, event.at);
          insertAuditEvent(db, event);
          return result;
        });
      } finally {
        db.pragma('secure_delete = OFF');
      }
    },
    async rescore(partition, id, change, outbox) {
      return withOutbox(db, outbox, () => {
        const row = ownedRow(db, partition, id);
        const before = toSubmission(row);
        moveScore(db, row.environment, before, change);
        statement(
          db,
          'UPDATE submissions SET score = ?, grade = ?, score_breakdown = ?, form_version = ?, scored_at = ?, updated_at = ? WHERE id = ?',
        ).run(change.score, change.grade, JSON.stringify(change.scoreBreakdown), change.formVersion, change.at, change.at, id);
        return {
          submission: toSubmission(getRow(db, id)!),
          previous: { score: before.score, grade: before.grade, form_version: before.form_version },
        };
      });
    },
    async resume(partition, id, change, outbox) {
      return withOutbox(db, outbox, () => {
        const row = ownedRow(db, partition, id);
        const previous = toSubmission(row);
        const { submission: next, searchText, emailAnswers } = change(previous);
        statement(
          db,
          `UPDATE submissions SET status = ?, answers = ?, hidden = ?, visited_steps = ?, score = ?, grade = ?, score_breakdown = ?,
            metadata = ?, completed_at = ?, form_version = ?, scored_at = ?, updated_at = ?, search_text = ? WHERE id = ?`,
        ).run(...resumedColumns(next), searchText, id);
        indexSubmissionEmails(
          db,
          id,
          listedEmailAnswers({ workspaceId: row.workspace_id, environment: row.environment, submission: previous }, emailAnswers),
        );
        countInFunnel(db, row.environment, previous, -1);
        countInFunnel(db, row.environment, next, 1);
        return { submission: toSubmission(getRow(db, id)!), previous };
      });
    },
    async updateMetadata(partition, id, change) {
      return transaction(db, 'immediate', () => {
        const next = change(toSubmission(ownedRow(db, partition, id)));
        statement(db, 'UPDATE submissions SET metadata = ?, updated_at = ? WHERE id = ?').run(
          JSON.stringify(next.metadata),
          next.updated_at,
          id,
        );
        return toSubmission(getRow(db, id)!);
      });
    },
    async funnel({ formId, environment, from, to, topSources }) {
      const range = [formId, environment, from, to];
      const inRange = 'form_id = ? AND environment = ? AND day >= ? AND day <= ?';
      // One read transaction: the three tables are read at the same snapshot.
      return transaction(
        db,
        'deferred',
        (): FunnelTotals => ({
          days: statement(
            db,
            `SELECT day, started, completed, score_sum AS scoreSum, score_count AS scoreCount
             FROM submission_days WHERE ${inRange} ORDER BY day`,
          ).all(...range) as FunnelTotals['days'],
          steps: statement(
            db,
            `SELECT step_id AS stepId, SUM(reached) AS reached, SUM(dropped_off) AS droppedOff
             FROM submission_step_days WHERE ${inRange} GROUP BY step_id ORDER BY step_id`,
          ).all(...range) as FunnelTotals['steps'],
          grades: (
            statement(
              db,
              `SELECT grade, SUM(completed) AS completed FROM submission_grade_days WHERE ${inRange} GROUP BY grade ORDER BY grade`,
            ).all(...range) as Array<{ grade: string; completed: number }>
          ).map((row) => ({ grade: gradeOfKey(row.grade), completed: row.completed })),
          sources: sourceBreakdown(
            statement(db, `${sourceGroups(inRange)} ORDER BY SUM(started) DESC, utm_source LIMIT ?`).all(
              ...range,
              topSources,
            ) as SourceRow[],
            statement(
              db,
              `SELECT COUNT(*) AS sources, COALESCE(SUM(started), 0) AS started, COALESCE(SUM(completed), 0) AS completed
              FROM (${sourceGroups(inRange)})`,
            ).get(...range) as { sources: number; started: number; completed: number },
          ),
        }),
      );
    },
  };
}
