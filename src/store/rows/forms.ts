import type { Environment, Schema } from '../../contract.js';
import { deepFreeze, type Frozen } from '../../frozen.js';
import type { FormRecord } from '../types.js';

type Form = Schema<'Form'>;
type Definition = Pick<Form, 'steps' | 'logic' | 'scoring'>;

export interface FormSummaryRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  folder_id: string | null;
  name: string;
  slug: string;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface FormRow extends FormSummaryRow {
  /** The definition as JSON text (both stores keep the text as written). */
  definition: string;
}

export interface FormVersionRow {
  id: string;
  form_id: string;
  version: number;
  name: string;
  slug: string;
  definition: string;
  created_at: string;
}

export const toSummary = (row: FormSummaryRow): Schema<'FormSummary'> => ({
  id: row.id,
  object: 'form',
  name: row.name,
  slug: row.slug,
  status: 'published',
  version: row.version,
  folder_id: row.folder_id,
  test: row.environment === 'test',
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/**
 * Parsed definitions by form id and version. Every submission reads its form, and parsing the definition
 * was a measurable share of a POST /v1/submissions; a version's definition never changes, so the parse is
 * kept. Definitions are frozen so no caller can change the shared copy.
 */
const parsedDefinitions = new Map<string, { text: string; definition: Frozen<Definition> }>();
const maxParsedDefinitions = 1000;

function definitionOfRow(row: FormRow): Frozen<Definition> {
  const key = `${row.id}@${row.version}`;
  const cached = parsedDefinitions.get(key);
  // Comparing the stored text is a memory compare, far cheaper than parsing it again.
  if (cached !== undefined && cached.text === row.definition) return cached.definition;
  const definition = deepFreeze(JSON.parse(row.definition) as Definition);
  if (parsedDefinitions.size >= maxParsedDefinitions) parsedDefinitions.delete(parsedDefinitions.keys().next().value!);
  parsedDefinitions.set(key, { text: row.definition, definition });
  return definition;
}

export const toFormRecord = (row: FormRow): FormRecord => ({
  form: { ...toSummary(row), ...definitionOfRow(row) },
  workspaceId: row.workspace_id,
  environment: row.environment,
});

/** The definition column's text. */
export const definitionOf = (form: Form): string => JSON.stringify({ steps: form.steps, logic: form.logic, scoring: form.scoring });

export const toVersion = (row: FormVersionRow): Schema<'FormVersion'> => ({
  id: row.id,
  object: 'form_version',
  form_id: row.form_id,
  version: row.version,
  name: row.name,
  slug: row.slug,
  ...(JSON.parse(row.definition) as Definition),
  created_at: row.created_at,
});

/** A version summary as selected: every column but the definition. */
export type FormVersionSummaryRow = Omit<Schema<'FormVersionSummary'>, 'object'>;

export const toVersionSummary = ({ id, ...row }: FormVersionSummaryRow): Schema<'FormVersionSummary'> => ({
  id,
  object: 'form_version',
  ...row,
});

/** The counts and size a version's summary shows, kept beside its definition so lists never parse it. */
export const snapshotCounts = (form: Form, definition: string) => ({
  stepCount: form.steps.length,
  fieldCount: form.steps.reduce((sum, step) => sum + step.fields.length, 0),
  logicRuleCount: form.logic.length,
  scoringRuleCount: form.scoring.rules.length,
  definitionBytes: Buffer.byteLength(definition, 'utf8'),
});
