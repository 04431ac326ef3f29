/**
 * Where a submission came from (`metadata`, renamed `context` by submission-context.ts): the whole object as JSONB,
 * and `utm_source` in a column of its own, because the list filters on it and analytics break the funnel down by
 * it.
 *
 * The filter's index is partial (only rows that have a source) and ends in (created_at, id), so a filtered list
 * is a keyset range scan like the unfiltered one. `submission_source_days` is the per-day aggregate behind the
 * analytics breakdown, maintained with the other aggregates; '' stands for "no source" (a source is never
 * empty) because NULLs never conflict in a primary key. Submissions stored before this migration have no
 * source: the backfill counts them under ''.
 */
export const submissionMetadataSchema = `
  ALTER TABLE submissions ADD COLUMN metadata JSONB NOT NULL DEFAULT '{}'::jsonb;
  ALTER TABLE submissions ADD COLUMN utm_source TEXT;
  CREATE INDEX submissions_utm_source_page ON submissions (workspace_id, environment, utm_source, created_at DESC, id DESC)
    WHERE utm_source IS NOT NULL;

  CREATE TABLE submission_source_days (
    form_id TEXT NOT NULL,
    environment TEXT NOT NULL CHECK (environment IN ('live','test')),
    day TEXT NOT NULL,
    utm_source TEXT NOT NULL,
    started INTEGER NOT NULL DEFAULT 0,
    completed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (form_id, environment, day, utm_source)
  );
  INSERT INTO submission_source_days (form_id, environment, day, utm_source, started, completed)
    SELECT form_id, environment, day, '', started, completed FROM submission_days WHERE started <> 0;
  `;
