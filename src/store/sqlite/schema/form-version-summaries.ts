/**
 * Version lists return summaries: the counts and size are kept in columns so a list never reads, let alone
 * parses, the definitions. Existing rows are filled from their stored definition.
 */
export const formVersionSummariesSchema = `
  ALTER TABLE form_versions ADD COLUMN step_count INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE form_versions ADD COLUMN field_count INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE form_versions ADD COLUMN logic_rule_count INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE form_versions ADD COLUMN scoring_rule_count INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE form_versions ADD COLUMN definition_bytes INTEGER NOT NULL DEFAULT 0;
  UPDATE form_versions SET
    step_count = json_array_length(definition, '$.steps'),
    field_count = (SELECT COALESCE(SUM(json_array_length(step.value, '$.fields')), 0) FROM json_each(definition, '$.steps') AS step),
    logic_rule_count = json_array_length(definition, '$.logic'),
    scoring_rule_count = json_array_length(definition, '$.scoring.rules'),
    definition_bytes = length(CAST(definition AS BLOB));
  CREATE INDEX form_versions_page ON form_versions (form_id, created_at DESC, id DESC);
`;
