/**
 * Version lists return summaries: the counts and size are kept in columns so a list never reads, let alone
 * parses, the definitions. Existing rows are filled from their stored definition.
 */
export const formVersionSummariesSchema = `
  ALTER TABLE form_versions
    ADD COLUMN step_count INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN field_count INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN logic_rule_count INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN scoring_rule_count INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN definition_bytes INTEGER NOT NULL DEFAULT 0;
  UPDATE form_versions SET
    step_count = jsonb_array_length(definition::jsonb -> 'steps'),
    field_count = (SELECT COALESCE(SUM(jsonb_array_length(step -> 'fields')), 0) FROM jsonb_array_elements(definition::jsonb -> 'steps') AS step),
    logic_rule_count = jsonb_array_length(definition::jsonb -> 'logic'),
    scoring_rule_count = jsonb_array_length(definition::jsonb -> 'scoring' -> 'rules'),
    definition_bytes = octet_length(definition);
  CREATE INDEX form_versions_page ON form_versions (form_id, created_at DESC, id DESC);
`;
