import type { Environment, Schema } from '../../contract.js';
import type { KeyBound, KeyBounds } from '../page.js';
import type { FunnelTotals, SubmissionFilter, SubmissionRecord } from '../submission-store.js';
import { fromJson } from './json.js';

type Submission = Schema<'Submission'>;

export interface SubmissionRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  form_id: string;
  form_version: number;
  status: Submission['status'];
  answers: unknown;
  hidden: unknown;
  visited_steps: unknown;
  score: number;
  grade: string | null;
  score_breakdown: unknown;
  context: unknown;
  metadata: unknown;
  completed_at: string | null;
  utm_source: string | null;
  started_form_version: number | null;
  scored_at: string;
  created_at: string;
  updated_at: string;
}

/** The columns a `SubmissionRow` is read from. */
const submissionRowColumnNames = [
  'id',
  'workspace_id',
  'environment',
  'form_id',
  'form_version',
  'status',
  'answers',
  'hidden',
  'visited_steps',
  'score',
  'grade',
  'score_breakdown',
  'context',
  'metadata',
  'completed_at',
  'utm_source',
  'started_form_version',
  'scored_at',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof SubmissionRow>;
const unqualifiedColumns = submissionRowColumnNames.join(', ');

/**
 * `submissionRowColumnNames` for a SELECT, each prefixed with `alias.` when one is given. The list, the search's final
 * read and a submission's read name them rather than `*`: the table also holds the search text (every answer again,
 * as one string), which only the search reads, and decoding it for each row of a page of long submissions is most
 * of what reading the page costs. (The writes, which read one row, still read `*`.)
 */
export const submissionRowColumns = (alias?: string): string =>
  alias ? submissionRowColumnNames.map((column) => `${alias}.${column}`).join(', ') : unqualifiedColumns;

export const toSubmission = (row: SubmissionRow): Submission => ({
  id: row.id,
  object: 'submission',
  form_id: row.form_id,
  form_version: row.form_version,
  status: row.status,
  test: row.environment === 'test',
  answers: fromJson<Submission['answers']>(row.answers),
  hidden: fromJson<Submission['hidden']>(row.hidden),
  visited_steps: fromJson<string[]>(row.visited_steps),
  score: row.score,
  grade: row.grade,
  score_breakdown: fromJson<Submission['score_breakdown']>(row.score_breakdown),
  context: completeContext(fromJson<SubmissionContextGiven>(row.context)),
  metadata: fromJson<Submission['metadata']>(row.metadata),
  completed_at: row.completed_at,
  scored_at: row.scored_at,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

type SubmissionContext = Submission['context'];
/** The context as given on create, where every member may be missing. */
export type SubmissionContextGiven = Schema<'SubmissionContextCreate'>;

/**
 * The stored or given context with every member present, null where it was not given (rows stored before
 * the context existed hold `{}`).
 */
export function completeContext(given: SubmissionContextGiven | undefined): SubmissionContext {
  const utm = given?.utm ?? {};
  return {
    user_agent: given?.user_agent ?? null,
    referrer: given?.referrer ?? null,
    landing_url: given?.landing_url ?? null,
    utm: {
      source: utm.source ?? null,
      medium: utm.medium ?? null,
      campaign: utm.campaign ?? null,
      term: utm.term ?? null,
      content: utm.content ?? null,
    },
  };
}

export const toSubmissionRecord = (row: SubmissionRow): SubmissionRecord => ({
  submission: toSubmission(row),
  workspaceId: row.workspace_id,
  environment: row.environment,
  startedFormVersion: row.started_form_version ?? row.form_version,
});

const inclusive = (value: unknown): KeyBound | undefined => (value === undefined ? undefined : { value, inclusive: true });
const exclusive = (value: unknown): KeyBound | undefined => (value === undefined ? undefined : { value, inclusive: false });

/**
 * The filters on the list's order column, which both stores give the keyset page as an index range (a filter on
 * the other column stays a condition of the list).
 */
export const orderBounds = (key: 'created_at' | 'score', filter: SubmissionFilter): KeyBounds =>
  key === 'created_at'
    ? { min: inclusive(filter.createdGte), max: exclusive(filter.createdLt) }
    : { min: inclusive(filter.minScore), max: inclusive(filter.maxScore) };

/** `status` to `completed_at`: the run of columns an insert and a resume both write, in this order. */
const answeredAndScored = (s: Submission): unknown[] => [
  s.status,
  JSON.stringify(s.answers),
  JSON.stringify(s.hidden),
  JSON.stringify(s.visited_steps),
  s.score,
  s.grade,
  JSON.stringify(s.score_breakdown),
  JSON.stringify(s.metadata),
  s.completed_at,
];

/**
 * The columns of a submission row as an insert writes them, and their values in the same order (both stores
 * bind them positionally).
 */
export const insertedColumns =
  'id, workspace_id, environment, form_id, form_version, status, answers, hidden, visited_steps, score, grade, ' +
  'score_breakdown, metadata, completed_at, context, utm_source, started_form_version, scored_at, created_at, updated_at, search_text';

export const insertedValues = ({
  submission: s,
  workspaceId,
  environment,
  startedFormVersion,
  searchText,
}: SubmissionRecord): unknown[] => [
  s.id,
  workspaceId,
  environment,
  s.form_id,
  s.form_version,
  ...answeredAndScored(s),
  JSON.stringify(s.context),
  s.context.utm.source,
  startedFormVersion ?? s.form_version,
  s.scored_at,
  s.created_at,
  s.updated_at,
  searchText ?? '',
];

/** The columns a resume rewrites, in this order (both stores bind them positionally). */
export const resumedColumns = (s: Submission): unknown[] => [...answeredAndScored(s), s.form_version, s.scored_at, s.updated_at];

/** What the aggregates count of one submission. */
export type FunnelFacts = Pick<Submission, 'form_id' | 'status' | 'score' | 'grade' | 'visited_steps' | 'created_at' | 'context'>;

/** The UTC day (`YYYY-MM-DD`) a submission is counted under. */
export const dayOf = (timestamp: string): string => timestamp.slice(0, 10);

/** The aggregate key of a grade: NULLs never conflict in a primary key, and a label is never empty. */
export const gradeKey = (grade: string | null): string => grade ?? '';
/** The aggregate key of a UTM source, '' for none: a source is never empty (see ContextText). */
export const sourceKey = (context: SubmissionContext): string => context.utm.source ?? '';
export const sourceOfKey = (key: string): string | null => (key === '' ? null : key);
export const gradeOfKey = (key: string): string | null => (key === '' ? null : key);

/**
 * One submission's step rows, one per step id (a path that passes a step twice counts it once per visit), in
 * step-id order so that two transactions writing the same day take the rows' locks in the same order. Each store
 * writes them with one statement.
 */
export function stepTotals(facts: FunnelFacts, sign: 1 | -1): Array<{ stepId: string; reached: number; droppedOff: number }> {
  const steps = new Map<string, { reached: number; droppedOff: number }>();
  for (const step of stepCounts(facts, sign)) {
    const sum = steps.get(step.stepId) ?? { reached: 0, droppedOff: 0 };
    steps.set(step.stepId, { reached: sum.reached + step.reached, droppedOff: sum.droppedOff + step.droppedOff });
  }
  return [...steps.keys()].sort().map((stepId) => ({ stepId, ...steps.get(stepId)! }));
}

/** One submission's step rows: every step reached once, the last one dropped off unless it completed. */
export function stepCounts(facts: FunnelFacts, sign: 1 | -1): Array<{ stepId: string; reached: number; droppedOff: number }> {
  const completed = facts.status === 'completed';
  const last = facts.visited_steps.length - 1;
  return facts.visited_steps.map((stepId, index) => ({
    stepId,
    reached: sign,
    droppedOff: !completed && index === last ? sign : 0,
  }));
}

/** The source breakdown from the top rows (aggregate keys) and the sums over every source. */
export function sourceBreakdown(
  top: Array<{ source: string; started: number; completed: number }>,
  all: { sources: number; started: number; completed: number },
): FunnelTotals['sources'] {
  const sum = (pick: (row: (typeof top)[number]) => number) => top.reduce((total, row) => total + pick(row), 0);
  return {
    top: top.map((row) => ({ source: sourceOfKey(row.source), started: row.started, completed: row.completed })),
    other: {
      sources: all.sources - top.length,
      started: all.started - sum((row) => row.started),
      completed: all.completed - sum((row) => row.completed),
    },
  };
}

/** Per source, the rows of a range that still count (a delete can leave a row at zero). */
export const sourceGroups = (inRange: string, from = 'submission_source_days'): string =>
  `SELECT utm_source AS source, SUM(started) AS started, SUM(completed) AS completed FROM ${from}
   WHERE ${inRange} GROUP BY utm_source HAVING SUM(started) > 0`;
