/**
 * Finding leads: `sort`, `grade` and `q` on the submissions list and export; the same indexes as the SQLite
 * store's migration (see there why each exists).
 *
 * `search_text` holds what `q` searches: the answers of text, email and phone fields, lower-cased, one per
 * line, written by the service on insert. Rows stored before this migration get it from their form version's
 * definition here.
 */
export const submissionFindSchema = `
  ALTER TABLE submissions ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
  UPDATE submissions s SET search_text = COALESCE((
    SELECT string_agg(lower(a.value), E'\\n') FROM jsonb_each(s.answers) e, LATERAL (SELECT e.value #>> '{}' AS value) a
    WHERE jsonb_typeof(e.value) = 'string' AND e.key IN (
      SELECT f->>'ref' FROM form_versions v, jsonb_array_elements(v.definition::jsonb->'steps') st, jsonb_array_elements(st->'fields') f
      WHERE v.form_id = s.form_id AND v.version = s.form_version
        AND f->>'type' IN ('short_text', 'long_text', 'email', 'phone'))), '');
  CREATE INDEX submissions_score_page ON submissions (workspace_id, environment, score DESC, id DESC);
  CREATE INDEX submissions_form_score_page ON submissions (form_id, environment, score DESC, id DESC);
  CREATE INDEX submissions_grade_page ON submissions (workspace_id, environment, grade, created_at DESC, id DESC);
  CREATE INDEX submissions_form_grade_page ON submissions (form_id, environment, grade, created_at DESC, id DESC);
  CREATE INDEX submissions_grade_score_page ON submissions (workspace_id, environment, grade, score DESC, id DESC);
  CREATE INDEX submissions_form_grade_score_page ON submissions (form_id, environment, grade, score DESC, id DESC);
  `;
