/**
 * The form version a submission's answers were checked against when it was created. `form_version` cannot say:
 * a rescore moves it to the version whose scoring produced the score. A partial submission resumed later is
 * checked against this version, so the questions it answers do not change under the respondent. NULL on rows
 * stored before this migration, which were never rescored if they are still partial in most cases: the store
 * reads NULL as their `form_version`.
 */
export const submissionResumeSchema = `
  ALTER TABLE submissions ADD COLUMN started_form_version INTEGER;
  `;
