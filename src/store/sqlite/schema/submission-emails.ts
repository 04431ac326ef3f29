/**
 * The address index behind `POST /v1/submissions/erase`, and the storage of bulk rescore jobs.
 *
 * `submission_emails` holds, per submission, each answer to an `email` field in its normalised form (surrounding
 * spaces, tabs and line breaks removed, ASCII letters lower-cased: `normalisedEmail`). An erasure looks the
 * address up in its workspace and environment by the primary key instead of reading every submission's answers.
 * Rows go with their submission (delete, erasure, form cascade, test-data reset) and move with its form
 * (transfer). Existing submissions are indexed here from their answers and form version; new ones name theirs.
 *
 * `events.submission_id` names the submission a `submission.*` event carries, so an erasure finds the stored
 * events (and their pending attempts) of the submissions it deletes by index. It is computed from the stored
 * body, which needs no change to how events are written.
 *
 * `rescore_jobs` is the queue of bulk rescores: a running job carries its lease (`lease_owner`, `lease_until`)
 * and its progress cursor (`cursor_created_at`, `cursor_id`: the last submission rescored, walking newest
 * first), committed with each batch, so a job whose process stopped is resumed by another from that point.
 * At most one job per form and environment is active (the partial unique index).
 */

/**
 * The comparable form of an address: surrounding spaces, tabs and line breaks removed, ASCII letters in lower
 * case (SQLite's `lower` folds ASCII only; the PostgreSQL store folds the same letters).
 */
export const normalisedEmail = (expression: string): string => `lower(trim(${expression}, char(32, 9, 10, 13)))`;

/**
 * Indexes every string answer to an `email` field of the submissions matching `where` (on alias `s`). The field
 * types come from the submission's version snapshot, or from the form itself when that snapshot was pruned.
 */
export const indexSubmissionEmailsSql = (where: string): string => `
  INSERT OR IGNORE INTO submission_emails (workspace_id, environment, email, submission_id, form_id)
  SELECT s.workspace_id, s.environment, ${normalisedEmail('answer.value')}, s.id, s.form_id
  FROM submissions s
  JOIN json_each(s.answers) AS answer ON answer.type = 'text'
  JOIN json_each(COALESCE(
    (SELECT v.definition FROM form_versions v WHERE v.form_id = s.form_id AND v.version = s.form_version),
    (SELECT f.definition FROM forms f WHERE f.id = s.form_id)
  ), '$.steps') AS step
  JOIN json_each(step.value, '$.fields') AS field
    ON json_extract(field.value, '$.type') = 'email' AND json_extract(field.value, '$.ref') = answer.key
  WHERE ${where}`;

// The backfill derives entries in SQL; new and resumed submissions name theirs and are normalised by the same
// expression. If the normalisation ever changes, a new migration re-indexes with the new one.
export const submissionEmailsSchema = `
  CREATE TABLE submission_emails (
    workspace_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    email TEXT NOT NULL,
    submission_id TEXT NOT NULL,
    form_id TEXT NOT NULL,
    PRIMARY KEY (workspace_id, environment, email, submission_id)
  ) WITHOUT ROWID;
  CREATE INDEX submission_emails_submission ON submission_emails (submission_id);
  CREATE INDEX submission_emails_form ON submission_emails (form_id);
  ${indexSubmissionEmailsSql('1 = 1')};

  ALTER TABLE events ADD COLUMN submission_id TEXT
    GENERATED ALWAYS AS (CASE WHEN type LIKE 'submission.%' THEN json_extract(body, '$.data.object.id') END) VIRTUAL;
  CREATE INDEX events_submission ON events (submission_id) WHERE submission_id IS NOT NULL;

  CREATE TABLE rescore_jobs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    form_id TEXT NOT NULL,
    form_version INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued','running','succeeded','failed')),
    total INTEGER NOT NULL,
    processed INTEGER NOT NULL DEFAULT 0,
    changed INTEGER NOT NULL DEFAULT 0,
    failure_message TEXT,
    cursor_created_at TEXT,
    cursor_id TEXT,
    lease_owner TEXT,
    lease_until TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT
  );
  CREATE UNIQUE INDEX rescore_jobs_active_form ON rescore_jobs (form_id, environment) WHERE status IN ('queued','running');
  CREATE INDEX rescore_jobs_claimable ON rescore_jobs (created_at) WHERE status IN ('queued','running');
  CREATE INDEX rescore_jobs_form ON rescore_jobs (form_id);
`;
