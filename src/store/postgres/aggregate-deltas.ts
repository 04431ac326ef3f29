import type pg from 'pg';
import type { Environment } from '../../contract.js';
import { dayOf, type FunnelFacts, gradeKey, sourceKey, stepTotals } from '../rows/submissions.js';
import type { SubmissionRecord } from '../submission-store.js';
import { advisoryLocks } from './advisory-locks.js';
import { inTransaction, one, Parameters, type Queryable, run } from './database.js';

/** One row of `submission_aggregate_deltas`: what a write adds to (or takes from) its form's aggregates. */
export interface AggregateDelta {
  formId: string;
  environment: Environment;
  day: string;
  started: number;
  completed: number;
  scoreSum: number;
  scoreCount: number;
  utmSource: string | null;
  grade: string | null;
  gradeCompleted: number;
  steps: Array<{ stepId: string; reached: number; droppedOff: number }>;
  /** The workspace month a live create counts into; undefined for every other change. */
  usage?: { workspaceId: string; month: string };
}

/** Adds (sign 1) or removes (sign -1) one submission from its form's funnel: days, steps, sources, grades. */
export function funnelDelta(environment: Environment, facts: FunnelFacts, sign: 1 | -1): AggregateDelta {
  const completed = facts.status === 'completed' ? sign : 0;
  return {
    formId: facts.form_id,
    environment,
    day: dayOf(facts.created_at),
    started: sign,
    completed,
    scoreSum: completed * facts.score,
    scoreCount: completed,
    utmSource: sourceKey(facts.context),
    grade: completed === 0 ? null : gradeKey(facts.grade),
    gradeCompleted: completed,
    steps: stepTotals(facts, sign),
  };
}

/** A created submission's delta: its funnel, and for a live one the workspace month's usage count. */
export const creationDelta = ({ environment, workspaceId, submission }: SubmissionRecord): AggregateDelta => ({
  ...funnelDelta(environment, submission, 1),
  usage: environment === 'live' ? { workspaceId, month: submission.created_at.slice(0, 7) } : undefined,
});

/** Moves a completed submission's score and grade (a rescore): the day's score sum, one grade down, one up. */
export function scoreDeltas(
  environment: Environment,
  before: Pick<FunnelFacts, 'form_id' | 'score' | 'grade' | 'created_at'>,
  after: { score: number; grade: string | null },
): AggregateDelta[] {
  const base = { formId: before.form_id, environment, day: dayOf(before.created_at), started: 0, completed: 0, scoreCount: 0 };
  const none = { utmSource: null, steps: [] };
  return [
    { ...base, ...none, scoreSum: after.score - before.score, grade: gradeKey(before.grade), gradeCompleted: -1 },
    { ...base, ...none, scoreSum: 0, grade: gradeKey(after.grade), gradeCompleted: 1 },
  ];
}

export const deltaColumns =
  'form_id, environment, day, started, completed, score_sum, score_count, utm_source, grade, grade_completed, step_ids, reached, dropped_off, workspace_id, month, submissions';
const deltaCasts = ['', '', '', '', '', '', '', '', '', '', '::text[]', '::int[]', '::int[]', '', '', ''];

/** One delta's values in `deltaColumns` order. */
export const deltaRow = (delta: AggregateDelta): unknown[] => [
  delta.formId,
  delta.environment,
  delta.day,
  delta.started,
  delta.completed,
  delta.scoreSum,
  delta.scoreCount,
  delta.utmSource,
  delta.grade,
  delta.gradeCompleted,
  delta.steps.map((step) => step.stepId),
  delta.steps.map((step) => step.reached),
  delta.steps.map((step) => step.droppedOff),
  delta.usage?.workspaceId ?? null,
  delta.usage?.month ?? null,
  delta.usage ? 1 : 0,
];

/** One delta's values in `deltaColumns` order, each as the placeholder `add` returns for it (with its cast). */
export function deltaValues(delta: AggregateDelta, add: (value: unknown) => string): string {
  const row = deltaRow(delta);
  return row.map((value, column) => `${add(value)}${deltaCasts[column]}`).join(', ');
}

/** Appends the rows in the caller's transaction: an insert only, so it locks nothing another write wants. */
export async function appendDeltas(db: Queryable, deltas: readonly AggregateDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const params = new Parameters();
  const rows = deltas.map((delta) => `(${deltaValues(delta, (value) => params.add(value))})`);
  await run(db, `INSERT INTO submission_aggregate_deltas (${deltaColumns}) VALUES ${rows.join(', ')}`, params.values);
}

/**
 * The aggregate tables as readers see them: the folded rows and the pending deltas, each shaped like the table.
 * Every read of an aggregate goes through these inside one statement or one snapshot, so a fold (one statement,
 * atomic) is seen entirely or not at all and the sums are the same before and after it.
 */
export const mergedAggregates = {
  submission_days: `(SELECT form_id, environment, day, started, completed, score_sum, score_count FROM submission_days
     UNION ALL SELECT form_id, environment, day, started, completed, score_sum, score_count FROM submission_aggregate_deltas)`,
  submission_step_days: `(SELECT form_id, environment, day, step_id, reached, dropped_off FROM submission_step_days
     UNION ALL SELECT d.form_id, d.environment, d.day, u.step_id, u.reached, u.dropped_off
       FROM submission_aggregate_deltas d, unnest(d.step_ids, d.reached, d.dropped_off) AS u(step_id, reached, dropped_off))`,
  submission_source_days: `(SELECT form_id, environment, day, utm_source, started, completed FROM submission_source_days
     UNION ALL SELECT form_id, environment, day, utm_source, started, completed FROM submission_aggregate_deltas WHERE utm_source IS NOT NULL)`,
  submission_grade_days: `(SELECT form_id, environment, day, grade, completed FROM submission_grade_days
     UNION ALL SELECT form_id, environment, day, grade, grade_completed FROM submission_aggregate_deltas WHERE grade IS NOT NULL)`,
} as const;

/** A workspace month's submissions counted so far, folded or pending, in one statement (parameters: workspace, month). */
export const pendingUsageSubmissions =
  'SELECT COALESCE(SUM(submissions), 0)::bigint FROM submission_aggregate_deltas WHERE workspace_id = $1 AND month = $2 AND submissions <> 0';

/**
 * Moves every pending delta into the aggregate tables in one statement: the rows a DELETE takes are exactly the
 * rows added, so a delta committed while the fold runs stays for the next one, and a reader's snapshot sees each
 * delta either pending or folded, never both. Rows another transaction holds (a form's cascade deleting them) are
 * skipped rather than waited for. Each target is grouped first: an upsert may touch a row only once.
 */
const foldStatement = `
  WITH d AS (
    DELETE FROM submission_aggregate_deltas WHERE ctid = ANY(ARRAY(SELECT ctid FROM submission_aggregate_deltas FOR UPDATE SKIP LOCKED))
    RETURNING *
  ), days AS (
    INSERT INTO submission_days AS t (form_id, environment, day, started, completed, score_sum, score_count)
    SELECT form_id, environment, day, SUM(started), SUM(completed), SUM(score_sum), SUM(score_count) FROM d GROUP BY 1, 2, 3
    ON CONFLICT (form_id, environment, day) DO UPDATE SET started = t.started + excluded.started,
      completed = t.completed + excluded.completed, score_sum = t.score_sum + excluded.score_sum,
      score_count = t.score_count + excluded.score_count
  ), steps AS (
    INSERT INTO submission_step_days AS t (form_id, environment, day, step_id, reached, dropped_off)
    SELECT d.form_id, d.environment, d.day, u.step_id, SUM(u.reached), SUM(u.dropped_off)
    FROM d, unnest(d.step_ids, d.reached, d.dropped_off) AS u(step_id, reached, dropped_off) GROUP BY 1, 2, 3, 4
    ON CONFLICT (form_id, environment, day, step_id) DO UPDATE SET reached = t.reached + excluded.reached,
      dropped_off = t.dropped_off + excluded.dropped_off
  ), sources AS (
    INSERT INTO submission_source_days AS t (form_id, environment, day, utm_source, started, completed)
    SELECT form_id, environment, day, utm_source, SUM(started), SUM(completed) FROM d WHERE utm_source IS NOT NULL GROUP BY 1, 2, 3, 4
    ON CONFLICT (form_id, environment, day, utm_source) DO UPDATE SET started = t.started + excluded.started,
      completed = t.completed + excluded.completed
    RETURNING t.form_id, t.environment, t.day, t.utm_source, t.started, t.completed
  ), grades AS (
    INSERT INTO submission_grade_days AS t (form_id, environment, day, grade, completed)
    SELECT form_id, environment, day, grade, SUM(grade_completed) FROM d WHERE grade IS NOT NULL GROUP BY 1, 2, 3, 4
    ON CONFLICT (form_id, environment, day, grade) DO UPDATE SET completed = t.completed + excluded.completed
  ), usage AS (
    INSERT INTO usage_counters AS t (workspace_id, month, submissions)
    SELECT workspace_id, month, SUM(submissions) FROM d WHERE submissions <> 0 GROUP BY 1, 2
    ON CONFLICT (workspace_id, month) DO UPDATE SET submissions = t.submissions + excluded.submissions
  )
  SELECT (SELECT COUNT(*)::int FROM d) AS folded,
    (SELECT json_agg(json_build_array(form_id, environment, day, utm_source)) FROM sources WHERE started = 0 AND completed = 0)
      AS emptied`;

/**
 * The source rows the fold left counting no submission, deleted: a source is the respondent's text (it may hold a
 * name or an address), and a deleted or erased submission must not leave it behind at zero. A separate statement,
 * since the statements of one WITH all see the table as it was before it. (Parameter: the keys, as JSON.)
 */
const deleteEmptySourceRows = `
  DELETE FROM submission_source_days t USING json_array_elements($1::json) k
  WHERE t.form_id = k->>0 AND t.environment = k->>1 AND t.day = k->>2 AND t.utm_source = k->>3
    AND t.started = 0 AND t.completed = 0`;

/**
 * Folds the pending deltas if no other process is folding (then it returns 0: theirs takes these rows too). The
 * lock is the transaction's, so a fold that fails or whose connection drops frees it with its rollback.
 */
export async function foldAggregateDeltas(pool: pg.Pool): Promise<number> {
  return inTransaction(pool, async (client) => {
    const lock = await one<{ locked: boolean }>(client, 'SELECT pg_try_advisory_xact_lock($1) AS locked', [advisoryLocks.aggregateFold]);
    if (!lock!.locked) return 0;
    const { folded, emptied } = (await one<{ folded: number; emptied: string[][] | null }>(client, foldStatement))!;
    if (emptied !== null) await run(client, deleteEmptySourceRows, [JSON.stringify(emptied)]);
    return folded;
  });
}
