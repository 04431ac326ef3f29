/**
 * Source rows left at zero by earlier versions, deleted. A source row is keyed by the respondent's own
 * `utm_source` (it may hold a name or an address); a row that counts no submission any more only kept that text
 * after its submissions were deleted or erased. Writes since this version delete such a row when they leave it at
 * zero (the SQLite tally, the PostgreSQL fold); this clears the ones made before.
 */
export const sourceRowsEmptiedSchema = `
  DELETE FROM submission_source_days WHERE started = 0 AND completed = 0;
`;
