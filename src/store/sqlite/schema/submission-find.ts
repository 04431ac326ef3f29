/**
 * Finding leads: `sort`, `grade` and `q` on the submissions list and export.
 *
 * Each order a list can take has an index per partition (the workspace's, or one form's, per environment), with
 * and without a grade, ending in (key, id): a page deep in a million rows is a range scan from the cursor in
 * any order, as cheap as the first. Indexes are scanned backwards for the ascending orders. Other filters
 * (status, score bounds, dates, `q`) are checked on the rows the scan passes.
 *
 * `search_text` holds what `q` searches: the answers of text, email and phone fields, lower-cased, one per
 * line, written by the service on insert. Rows stored before this migration get it from their form version's
 * definition here (SQLite's lower() folds ASCII letters only; the service folds all of Unicode).
 */
export const submissionFindSchema = `
  ALTER TABLE submissions ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
  UPDATE submissions SET search_text = COALESCE((
    SELECT group_concat(lower(a.value), char(10)) FROM json_each(submissions.answers) a
    WHERE a.type = 'text' AND a.key IN (
      SELECT json_extract(f.value, '$.ref') FROM form_versions v, json_each(v.definition, '$.steps') st, json_each(st.value, '$.fields') f
      WHERE v.form_id = submissions.form_id AND v.version = submissions.form_version
        AND json_extract(f.value, '$.type') IN ('short_text', 'long_text', 'email', 'phone'))), '');
  CREATE INDEX submissions_score_page ON submissions (workspace_id, environment, score DESC, id DESC);
  CREATE INDEX submissions_form_score_page ON submissions (form_id, environment, score DESC, id DESC);
  CREATE INDEX submissions_grade_page ON submissions (workspace_id, environment, grade, created_at DESC, id DESC);
  CREATE INDEX submissions_form_grade_page ON submissions (form_id, environment, grade, created_at DESC, id DESC);
  CREATE INDEX submissions_grade_score_page ON submissions (workspace_id, environment, grade, score DESC, id DESC);
  CREATE INDEX submissions_form_grade_score_page ON submissions (form_id, environment, grade, score DESC, id DESC);
  `;
