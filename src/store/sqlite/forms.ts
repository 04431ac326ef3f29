import type Database from 'better-sqlite3';
import type { Schema } from '../../contract.js';
import { deepFreeze } from '../../frozen.js';
import { newId } from '../../ids.js';
import { RecordNotFound, ReferenceMissing, StoreConflict } from '../errors.js';
import type { Outbox } from '../outbox.js';
import { type ApiKeyRow, toApiKey } from '../rows/api-keys.js';
import { assertTagUnchanged } from '../rows/entity-tags.js';
import {
  definitionOf,
  type FormRow,
  type FormSummaryRow,
  type FormVersionRow,
  type FormVersionSummaryRow,
  snapshotCounts,
  storedLogoOf,
  toFormRecord,
  toSummary,
  toVersion,
  toVersionSummary,
} from '../rows/forms.js';
import { formLogoSql } from '../sql/form-logos.js';
import type { AuditEventInput, FormRecord, FormStore } from '../types.js';
import { revokeKeyRow } from './api-keys.js';
import { insertAuditEvent } from './audit-events.js';
import { integrationFormCascade } from './integrations.js';
import { metadataHolds } from './metadata.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { rowCaches } from './row-cache.js';
import { prepared } from './shared-sql.js';
import { statement } from './statements.js';
import { submissionFormCascade, submissionFormTransfer } from './submissions.js';

type Form = Schema<'Form'>;

const summaryColumns =
  'f.id, f.workspace_id, f.environment, f.folder_id, f.name, f.slug, f.version, f.created_at, f.updated_at, f.metadata';

/** Slugs are unique per workspace and environment; the database constraint is the final word. */
export function slugTaken(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_UNIQUE' && error.message.includes('forms.slug');
}

/**
 * How many forms are kept in memory (row-cache.ts), and how much definition text they may hold together: a
 * definition may be 256 KiB, and a cached form's response text and tag text are kept beside it while it is cached.
 */
const cachedForms = { rows: 1_000, weight: 16 * 1024 * 1024 };

export function sqliteForms(db: Database.Database): FormStore {
  // Every submission and every form read reads its form; the record changes only when its row does.
  const records = rowCaches(db).create<{ record: FormRecord; definitionLength: number }>(['forms'], {
    ...cachedForms,
    weigh: (cached) => cached.definitionLength,
  });
  const insertSnapshot = (form: Form, definition: string): void => {
    const counts = snapshotCounts(form, definition);
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
      counts.stepCount,
      counts.fieldCount,
      counts.logicRuleCount,
      counts.scoringRuleCount,
      counts.definitionBytes,
    );
  };
  /**
   * The write and its outbox in one transaction; a taken slug is a conflict, and a folder deleted since the caller
   * checked it (the form's only foreign key that can fail: workspaces are never deleted) is a missing reference.
   */
  const writeOrConflict = (form: Schema<'Form'>, outbox: Outbox<void> | undefined, write: () => void): void => {
    try {
      withOutbox(db, outbox, write);
    } catch (error) {
      if (slugTaken(error)) throw new StoreConflict('slug_taken');
      if (form.folder_id !== null && (error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
        throw new ReferenceMissing('folder', form.folder_id);
      throw error;
    }
  };

  // The ownership predicate of every write: a form the workspace no longer holds (deleted, or moved by a transfer
  // accepted since the caller read it) is not found, inside the write's transaction.
  const ownedRow = (workspaceId: string, id: string): FormRow => {
    const row = statement(db, 'SELECT * FROM forms WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as FormRow | undefined;
    if (!row) throw new RecordNotFound('form', id);
    return row;
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
      for (const [key, value] of Object.entries(filter.metadata ?? {})) {
        where.push(metadataHolds('f'));
        params.push(key, value);
      }
      const result = keysetPage<FormSummaryRow>(db, {
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
      return records.get(`${workspaceId} ${id}`, () => {
        const row = statement(db, 'SELECT * FROM forms WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as FormRow | undefined;
        return row && deepFreeze({ record: toFormRecord(row), definitionLength: row.definition.length });
      })?.record;
    },
    async workspaceOf(id) {
      const row = statement(db, 'SELECT workspace_id FROM forms WHERE id = ?').get(id) as { workspace_id: string } | undefined;
      return row?.workspace_id;
    },
    async create({ form, workspaceId, environment }, outbox) {
      const definition = definitionOf(form);
      writeOrConflict(form, outbox, () => {
        statement(
          db,
          `INSERT INTO forms (id, workspace_id, environment, folder_id, name, slug, version, definition, created_at, updated_at, metadata)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
          JSON.stringify(form.metadata),
        );
        insertSnapshot(form, definition);
      });
    },
    async update({ form, workspaceId }, { keepVersions, expectedTag, audit }, outbox) {
      const definition = definitionOf(form);
      writeOrConflict(form, outbox, () => {
        assertTagUnchanged(ownedRow(workspaceId, form.id), formOf, expectedTag, { kind: 'form', id: form.id });
        statement(
          db,
          `UPDATE forms SET folder_id = ?, name = ?, slug = ?, version = ?, definition = ?, updated_at = ?, metadata = ? WHERE id = ?`,
        ).run(form.folder_id, form.name, form.slug, form.version, definition, form.updated_at, JSON.stringify(form.metadata), form.id);
        insertSnapshot(form, definition);
        statement(db, 'DELETE FROM form_versions WHERE form_id = ? AND version <= ?').run(form.id, form.version - keepVersions);
        prepared(db, formLogoSql.keepOnly).run({ formId: form.id, sha256: form.logo && storedLogoOf(form.logo).sha256 });
        if (audit) insertAuditEvent(db, audit);
      });
    },
    async delete(workspaceId, id, at, audit, outbox, options = {}) {
      withOutbox(db, outbox, () => {
        assertTagUnchanged(ownedRow(workspaceId, id), formOf, options.expectedTag, { kind: 'form', id });
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
        if (audit.form) insertAuditEvent(db, audit.form);
      });
    },
    async listVersions(formId, page) {
      const result = keysetPage<FormVersionSummaryRow>(db, {
        from: 'form_versions v',
        alias: 'v',
        select: versionSummaryColumns,
        where: 'v.form_id = ?',
        params: [formId],
        page,
      });
      return { data: result.data.map(toVersionSummary), hasMore: result.hasMore };
    },
    async getVersion(formId, version) {
      const row = statement(db, 'SELECT * FROM form_versions WHERE form_id = ? AND version = ?').get(formId, version) as
        | FormVersionRow
        | undefined;
      return row && toVersion(row);
    },
  };
}

const formOf = (row: FormRow) => toFormRecord(row).form;

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

/** Everything that belongs to a form, deleted with it in one transaction, children first. */
const deleteFormCascade: string[] = [
  ...submissionFormCascade,
  ...integrationFormCascade,
  'DELETE FROM form_versions WHERE form_id = ?',
  'DELETE FROM form_logos WHERE form_id = ?',
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
