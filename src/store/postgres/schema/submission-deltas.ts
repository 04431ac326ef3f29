/**
 * Aggregate changes appended, not applied: each insert, resume, rescore, delete and erasure of a submission adds
 * rows here instead of updating its form's day rows (and its workspace's month) in place, so concurrent writes to
 * one form never wait on each other. A background fold moves them into `submission_*_days` and `usage_counters`;
 * reads add the rows still pending (see aggregate-deltas.ts). No primary key: nothing looks a row up by itself.
 *
 * - `utm_source`, `grade`: null when the row changes no source or grade aggregate (a rescore has no source).
 * - `workspace_id`, `month`, `submissions`: the live submissions counted into the workspace's usage month, kept
 *   where the submission was created (a transfer later does not move usage, as before).
 * - `submission_aggregate_deltas_funnel`: the analytics read's range over a form's pending days.
 * - `submission_aggregate_deltas_usage`: the usage read's month, only rows that count one.
 */
export const submissionDeltasSchema = `
  CREATE TABLE submission_aggregate_deltas (
    form_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    day TEXT NOT NULL,
    started INTEGER NOT NULL,
    completed INTEGER NOT NULL,
    score_sum BIGINT NOT NULL,
    score_count INTEGER NOT NULL,
    utm_source TEXT,
    grade TEXT,
    grade_completed INTEGER NOT NULL,
    step_ids TEXT[] NOT NULL,
    reached INTEGER[] NOT NULL,
    dropped_off INTEGER[] NOT NULL,
    workspace_id TEXT,
    month TEXT,
    submissions INTEGER NOT NULL
  );
  CREATE INDEX submission_aggregate_deltas_funnel ON submission_aggregate_deltas (form_id, environment, day);
  CREATE INDEX submission_aggregate_deltas_usage ON submission_aggregate_deltas (workspace_id, month) WHERE submissions <> 0;
`;
