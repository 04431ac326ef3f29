/**
 * Submissions and their analytics aggregates.
 *
 * Lists are keyset-paged newest first, so each list filter that defines a list has its own index ending in
 * (created_at, id): the workspace's list per environment, and one form's list per environment. A page deep in
 * a million-row list is then a range scan from the cursor, as cheap as the first page.
 *
 * The `submission_*` aggregate tables hold the funnel per form, environment and UTC day. They are updated in
 * the same transaction as every insert, delete and rescore, so GET /v1/analytics sums at most a few hundred
 * rows per figure whatever the number of submissions. They are keyed by form first, so a form's cascade and
 * the test-data reset (through the workspace's forms) delete them by index. The grade key is the label, or ''
 * for "no grade" (a label is never empty), because NULLs never conflict in a primary key.
 */
export const submissionsSchema = `
  CREATE TABLE submissions (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    form_id TEXT NOT NULL REFERENCES forms(id),
    form_version INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('partial','completed')),
    answers JSONB NOT NULL,
    hidden JSONB NOT NULL,
    visited_steps JSONB NOT NULL,
    score INTEGER NOT NULL,
    grade TEXT,
    score_breakdown JSONB NOT NULL,
    scored_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX submissions_page ON submissions (workspace_id, environment, created_at DESC, id DESC);
  CREATE INDEX submissions_form_page ON submissions (form_id, environment, created_at DESC, id DESC);

  CREATE TABLE submission_days (
    form_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    day TEXT NOT NULL,
    started INTEGER NOT NULL DEFAULT 0,
    completed INTEGER NOT NULL DEFAULT 0,
    score_sum BIGINT NOT NULL DEFAULT 0,
    score_count INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (form_id, environment, day)
  );

  CREATE TABLE submission_step_days (
    form_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    day TEXT NOT NULL,
    step_id TEXT NOT NULL,
    reached INTEGER NOT NULL DEFAULT 0,
    dropped_off INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (form_id, environment, day, step_id)
  );

  CREATE TABLE submission_grade_days (
    form_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    day TEXT NOT NULL,
    grade TEXT NOT NULL,
    completed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (form_id, environment, day, grade)
  );
  `;
