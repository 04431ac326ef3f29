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
 * events (and their pending attempts) of the submissions it deletes by index. It was added here as a stored generated
 * column, computed from the body (adding it rewrites the events table once); since `events-submission-id.ts` it is a
 * plain column that the writers set, so an event insert no longer parses its body.
 *
 * `rescore_jobs` is the queue of bulk rescores: a running job carries its lease (`lease_owner`, `lease_until`)
 * and its progress cursor (`cursor_created_at`, `cursor_id`: the last submission rescored, walking newest
 * first), committed with each batch, so a job whose process stopped is resumed by another from that point.
 * At most one job per form and environment is active (the partial unique index).
 */

/**
 * The comparable form of an address: surrounding spaces, tabs and line breaks removed, ASCII letters in lower
 * case. `COLLATE "C"` makes `lower` fold ASCII letters only, as SQLite's does, so both stores match the same
 * addresses whatever the database's locale.
 */
export const normalisedEmail = (expression: string): string => `lower(btrim(${expression}, E' \\t\\n\\r') COLLATE "C")`;

/**
 * Indexes every string answer to an `email` field of the submissions matching `where` (on alias `s`). The field
 * types come from the submission's version snapshot, or from the form itself when that snapshot was pruned.
 */
export const indexSubmissionEmailsSql = (where: string): string => `
  INSERT INTO submission_emails (workspace_id, environment, email, submission_id, form_id)
  SELECT s.workspace_id, s.environment, ${normalisedEmail("answer.value #>> '{}'")}, s.id, s.form_id
  FROM submissions s
  CROSS JOIN LATERAL jsonb_each(s.answers) AS answer(key, value)
  CROSS JOIN LATERAL jsonb_array_elements(COALESCE(
    (SELECT v.definition FROM form_versions v WHERE v.form_id = s.form_id AND v.version = s.form_version),
    (SELECT f.definition FROM forms f WHERE f.id = s.form_id)
  )::jsonb -> 'steps') AS step(value)
  CROSS JOIN LATERAL jsonb_array_elements(step.value -> 'fields') AS field(value)
  WHERE jsonb_typeof(answer.value) = 'string' AND field.value ->> 'type' = 'email' AND field.value ->> 'ref' = answer.key
    AND ${where}
  ON CONFLICT DO NOTHING`;

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
  );
  CREATE INDEX submission_emails_submission ON submission_emails (submission_id);
  CREATE INDEX submission_emails_form ON submission_emails (form_id);
  ${indexSubmissionEmailsSql('1 = 1')};

  ALTER TABLE events ADD COLUMN submission_id TEXT
    GENERATED ALWAYS AS (CASE WHEN type LIKE 'submission.%' THEN (body::jsonb #>> '{data,object,id}') END) STORED;
  CREATE INDEX events_submission ON events (submission_id) WHERE submission_id IS NOT NULL;

  CREATE TABLE rescore_jobs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    form_id TEXT NOT NULL,
    form_version INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued','running','succeeded','failed')),
    total BIGINT NOT NULL,
    processed BIGINT NOT NULL DEFAULT 0,
    changed BIGINT NOT NULL DEFAULT 0,
    failure_message TEXT,
    cursor_created_at TIMESTAMPTZ,
    cursor_id TEXT,
    lease_owner TEXT,
    lease_until TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    started_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ
  );
  CREATE UNIQUE INDEX rescore_jobs_active_form ON rescore_jobs (form_id, environment) WHERE status IN ('queued','running');
  CREATE INDEX rescore_jobs_claimable ON rescore_jobs (created_at) WHERE status IN ('queued','running');
  CREATE INDEX rescore_jobs_form ON rescore_jobs (form_id);
`;
