import type Database from 'better-sqlite3';
import type { Environment, Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import { StoreConflict } from '../errors.js';
import type { Outbox } from '../outbox.js';
import type { AuditEventInput, FormRecord, FormStore } from '../types.js';
import { type ApiKeyRow, revokeKeyRow, toApiKey } from './api-keys.js';
import { insertAuditEvent } from './audit-events.js';
import { integrationFormCascade } from './integrations.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { statement } from './statements.js';
import { submissionFormCascade, submissionFormTransfer } from './submissions.js';

type Form = Schema<'Form'>;
type Definition = Pick<Form, 'steps' | 'logic' | 'scoring'>;

interface FormRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  folder_id: string | null;
  name: string;
  slug: string;
  version: number;
  definition: string;
  created_at: string;
  updated_at: string;
}

const summaryColumns = 'f.id, f.workspace_id, f.environment, f.folder_id, f.name, f.slug, f.version, f.created_at, f.updated_at';

const toSummary = (row: Omit<FormRow, 'definition'>): Schema<'FormSummary'> => ({
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
const parsedDefinitions = new Map<string, { text: string; definition: Definition }>();
const maxParsedDefinitions = 1000;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function definitionOfRow(row: FormRow): Definition {
  const key = `${row.id}@${row.version}`;
  const cached = parsedDefinitions.get(key);
  // Comparing the stored text is a memory compare, far cheaper than parsing it again.
  if (cached !== undefined && cached.text === row.definition) return cached.definition;
  const definition = deepFreeze(JSON.parse(row.definition) as Definition);
  if (parsedDefinitions.size >= maxParsedDefinitions) parsedDefinitions.delete(parsedDefinitions.keys().next().value!);
  parsedDefinitions.set(key, { text: row.definition, definition });
  return definition;
}

const toRecord = (row: FormRow): FormRecord => ({
  form: { ...toSummary(row), ...definitionOfRow(row) },
  workspaceId: row.workspace_id,
  environment: row.environment,
});

const definitionOf = (form: Form): string => JSON.stringify({ steps: form.steps, logic: form.logic, scoring: form.scoring });

/** Slugs are unique per workspace and environment; the database constraint is the final word. */
export function slugTaken(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_UNIQUE' && error.message.includes('forms.slug');
}

export function sqliteForms(db: Database.Database): FormStore {
  const insertSnapshot = (form: Form, definition: string): void => {
    statement(
      db,
      `INSERT INTO form_versions (id, form_id, version, name, slug, definition, created_at,
         step_count, field_count, logic_rule_count, scoring_rule_count, definition_bytes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      newId('fv'),
      form.id,
      form.version,
      form.name,
      form.slug,
      definition,
      form.updated_at,
      form.steps.length,
      form.steps.reduce((sum, step) => sum + step.fields.length, 0),
      form.logic.length,
      form.scoring.rules.length,
      Buffer.byteLength(definition, 'utf8'),
    );
  };
  const writeOrConflict = (outbox: Outbox<void> | undefined, write: () => void): void => {
    try {
      withOutbox(db, outbox, write);
    } catch (error) {
      if (slugTaken(error)) throw new StoreConflict('slug_taken');
      throw error;
    }
  };

  return {
    async list(visibility, filter, page) {
      const environments = visibility.environments;
      const where = ['f.workspace_id = ?', `f.environment IN (${environments.map(() => '?').join(', ')})`];
      const params: unknown[] = [visibility.workspaceId, ...environments];
      const { attachment } = visibility;
      if (attachment.type === 'form') {
        where.push('f.id = ?');
        params.push(attachment.form_id);
      } else if (attachment.type === 'folder') {
        where.push('f.folder_id = ?');
        params.push(attachment.folder_id);
      }
      if (filter.folderId !== undefined) {
        where.push('f.folder_id = ?');
        params.push(filter.folderId);
      }
      const result = keysetPage<FormRow>(db, {
        from: 'forms f',
        alias: 'f',
        select: summaryColumns,
        where: where.join(' AND '),
        params,
        page,
      });
      return { data: result.data.map(toSummary), hasMore: result.hasMore };
    },
    async get(workspaceId, id) {
      const row = statement(db, 'SELECT * FROM forms WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as FormRow | undefined;
      return row && toRecord(row);
    },
    async create({ form, workspaceId, environment }, outbox) {
      const definition = definitionOf(form);
      writeOrConflict(outbox, () => {
        statement(
          db,
          `INSERT INTO forms (id, workspace_id, environment, folder_id, name, slug, version, definition, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          form.id,
          workspaceId,
          environment,
          form.folder_id,
          form.name,
          form.slug,
          form.version,
          definition,
          form.created_at,
          form.updated_at,
        );
        insertSnapshot(form, definition);
      });
    },
    async update({ form }, { keepVersions }, outbox) {
      const definition = definitionOf(form);
      writeOrConflict(outbox, () => {
        statement(db, `UPDATE forms SET folder_id = ?, name = ?, slug = ?, version = ?, definition = ?, updated_at = ? WHERE id = ?`).run(
          form.folder_id,
          form.name,
          form.slug,
          form.version,
          definition,
          form.updated_at,
          form.id,
        );
        insertSnapshot(form, definition);
        statement(db, 'DELETE FROM form_versions WHERE form_id = ? AND version <= ?').run(form.id, form.version - keepVersions);
      });
    },
    async delete(id, at, audit, outbox) {
      withOutbox(db, outbox, () => {
        // A key attached to a deleted form can reach nothing any more: it is revoked, as for a folder.
        const attached = statement(
          db,
          `SELECT * FROM api_keys WHERE attachment_type = 'form' AND attachment_id = ? AND status = 'active'`,
        ).all(id) as ApiKeyRow[];
        for (const row of attached) revokeKeyRow(db, row.id, { at, reason: null, cause: 'form_deleted' }, audit.revokedKey(toApiKey(row)));
        // A transfer still waiting for an answer has nothing left to move.
        statement(db, `UPDATE form_transfers SET status = 'canceled', resolved_at = ? WHERE form_id = ? AND status = 'pending'`).run(
          at,
          id,
        );
        for (const sql of deleteFormCascade) statement(db, sql).run(id);
      });
    },
    async listVersions(formId, page) {
      const result = keysetPage<Omit<Schema<'FormVersionSummary'>, 'object'>>(db, {
        from: 'form_versions v',
        alias: 'v',
        select: versionSummaryColumns,
        where: 'v.form_id = ?',
        params: [formId],
        page,
      });
      return { data: result.data.map(({ id, ...row }) => ({ id, object: 'form_version' as const, ...row })), hasMore: result.hasMore };
    },
    async getVersion(formId, version) {
      const row = statement(db, 'SELECT * FROM form_versions WHERE form_id = ? AND version = ?').get(formId, version) as
        | Parameters<typeof toVersion>[0]
        | undefined;
      return row && toVersion(row);
    },
  };
}

/** Everything a version summary shows; never the definition, which can be 256 KiB per row. */
const versionSummaryColumns = [
  'v.id',
  'v.form_id',
  'v.version',
  'v.name',
  'v.slug',
  'v.step_count',
  'v.field_count',
  'v.logic_rule_count',
  'v.scoring_rule_count',
  'v.definition_bytes',
  'v.created_at',
].join(', ');

const toVersion = (row: {
  id: string;
  form_id: string;
  version: number;
  name: string;
  slug: string;
  definition: string;
  created_at: string;
}): Schema<'FormVersion'> => ({
  id: row.id,
  object: 'form_version',
  form_id: row.form_id,
  version: row.version,
  name: row.name,
  slug: row.slug,
  ...(JSON.parse(row.definition) as Definition),
  created_at: row.created_at,
});

/** Everything that belongs to a form, deleted with it in one transaction, children first. */
const deleteFormCascade: string[] = [
  ...submissionFormCascade,
  ...integrationFormCascade,
  'DELETE FROM form_versions WHERE form_id = ?',
  'DELETE FROM forms WHERE id = ?',
];

/** Rows that follow a form to its new workspace: (workspace_id, form_id) parameters. */
const transferFormRows: string[] = [...submissionFormTransfer];

/**
 * Moves a form and its rows to another workspace and revokes the keys attached to it, with their audit
 * events; returns the revoked keys' ids. Runs inside the caller's transaction (an accepted transfer), which
 * throws a unique-constraint error, moving nothing, when the destination already has the form's slug.
 */
export function moveFormRows(
  db: Database.Database,
  formId: string,
  to: string,
  at: string,
  revokedKeyAudit: (key: Schema<'ApiKey'>) => AuditEventInput,
): string[] {
  statement(db, 'UPDATE forms SET workspace_id = ?, folder_id = NULL, updated_at = ? WHERE id = ?').run(to, at, formId);
  for (const sql of transferFormRows) statement(db, sql).run(to, formId);
  // The form's submission events hold its answers: they leave the old workspace's integrations (no replay,
  // no pending retries) just as they would if the form were deleted there.
  for (const sql of integrationFormCascade) statement(db, sql).run(formId);
  const attached = statement(db, `SELECT * FROM api_keys WHERE attachment_type = 'form' AND attachment_id = ? AND status = 'active'`).all(
    formId,
  ) as ApiKeyRow[];
  return attached
    .filter((row) => revokeKeyRow(db, row.id, { at, reason: null, cause: 'form_transferred' }, revokedKeyAudit(toApiKey(row))))
    .map((row) => row.id);
}
