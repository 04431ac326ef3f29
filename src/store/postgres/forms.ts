import type pg from 'pg';
import type { Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import { RecordNotFound, ReferenceMissing, StoreConflict } from '../errors.js';
import { toApiKey } from '../rows/api-keys.js';
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
import { attachedKeys, revokeKeyRow } from './api-keys.js';
import { insertAuditEvent } from './audit-events.js';
import { isForeignKeyViolation, isUniqueViolation, one, Parameters, type Queryable, run } from './database.js';
import { integrationFormCascade } from './integrations.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import type { RowCaches } from './row-cache.js';
import { submissionFormCascade, submissionFormTransfer } from './submissions.js';

type Form = Schema<'Form'>;

const summaryColumns =
  'f.id, f.workspace_id, f.environment, f.folder_id, f.name, f.slug, f.version, f.created_at, f.updated_at, f.metadata';

/** Slugs are unique per workspace and environment; the constraint decides, even between two processes. */
const slugConstraint = 'forms_workspace_id_environment_slug_key';

export async function slugChecked<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    // The transaction rolled back: nothing was written.
    if (isUniqueViolation(error, slugConstraint)) throw new StoreConflict('slug_taken');
    throw error;
  }
}

/**
 * A form filed in a folder deleted since the caller checked it: the folder's foreign key refused the row (a delete
 * that locked the folder first, then found it empty), and the transaction rolled back.
 */
const folderChecked =
  (form: Schema<'Form'>) =>
  (error: unknown): never => {
    if (form.folder_id !== null && isForeignKeyViolation(error, 'forms_folder_id_fkey'))
      throw new ReferenceMissing('folder', form.folder_id);
    throw error;
  };

/** Everything a version summary shows; never the definition, which can be 256 KiB per row. */
const versionSummaryColumns =
  'v.id, v.form_id, v.version, v.name, v.slug, v.step_count, v.field_count, v.logic_rule_count, v.scoring_rule_count, v.definition_bytes, v.created_at';

const insertSnapshot = (db: Queryable, form: Form, definition: string) => {
  const counts = snapshotCounts(form, definition);
  return run(
    db,
    `INSERT INTO form_versions (id, form_id, version, name, slug, definition, created_at,
       step_count, field_count, logic_rule_count, scoring_rule_count, definition_bytes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
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
    ],
  );
};

const formOf = (row: FormRow) => toFormRecord(row).form;

/**
 * The workspace's form, locked until the transaction ends: the ownership check and the compare of a compare-and-set
 * hold until the write, and a transfer's accept (which locks the row too) comes wholly before or after. A form the
 * workspace no longer holds (deleted, or moved by an accept that committed while this waited for the lock: the
 * predicate is checked again on the row as the accept left it) is not found.
 */
async function ownedRow(client: Queryable, workspaceId: string, id: string): Promise<FormRow> {
  const row = await one<FormRow>(client, 'SELECT * FROM forms WHERE id = $1 AND workspace_id = $2 FOR UPDATE', [id, workspaceId]);
  if (!row) throw new RecordNotFound('form', id);
  return row;
}

/**
 * How many forms are kept in memory (row-cache.ts), and how much definition text they may hold together: a
 * definition may be 256 KiB, and a cached form's response text and tag text are kept beside it while it is cached.
 */
const cachedForms = { rows: 1_000, weight: 16 * 1024 * 1024 };

export function postgresForms(pool: pg.Pool, caches: RowCaches): FormStore {
  // Every submission and every form read reads its form; the record changes only when its row does.
  const records = caches.create<{ record: FormRecord; definitionLength: number }>(['forms'], {
    ...cachedForms,
    weigh: (cached) => cached.definitionLength,
  });
  return {
    async list(visibility, filter, page) {
      const params = new Parameters();
      const where = [
        `f.workspace_id = ${params.add(visibility.workspaceId)}`,
        `f.environment = ANY(${params.add(visibility.environments)}::text[])`,
      ];
      const { attachment } = visibility;
      if (attachment.type === 'form') where.push(`f.id = ${params.add(attachment.form_id)}`);
      else if (attachment.type === 'folder') where.push(`f.folder_id = ${params.add(attachment.folder_id)}`);
      if (filter.folderId !== undefined) where.push(`f.folder_id = ${params.add(filter.folderId)}`);
      // A check on the ordered scan: no index serves it (see docs/internals/list-filters.md).
      if (filter.metadata !== undefined) where.push(`f.metadata @> ${params.add(JSON.stringify(filter.metadata))}::jsonb`);
      const result = await keysetPage<FormSummaryRow>(pool, {
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
      const cached = await records.get(`${workspaceId} ${id}`, async () => {
        const row = await one<FormRow>(pool, 'SELECT * FROM forms WHERE id = $1 AND workspace_id = $2', [id, workspaceId]);
        return row && { record: toFormRecord(row), definitionLength: row.definition.length };
      });
      return cached?.record;
    },
    async workspaceOf(id) {
      return (await one<{ workspace_id: string }>(pool, 'SELECT workspace_id FROM forms WHERE id = $1', [id]))?.workspace_id;
    },
    async create({ form, workspaceId, environment }, outbox) {
      const definition = definitionOf(form);
      await slugChecked(
        withOutbox(pool, outbox, async (client) => {
          await run(
            client,
            `INSERT INTO forms (id, workspace_id, environment, folder_id, name, slug, version, definition, created_at, updated_at, metadata)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
            [
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
            ],
          );
          await insertSnapshot(client, form, definition);
        }),
      ).catch(folderChecked(form));
    },
    async update({ form, workspaceId }, { keepVersions, expectedTag, audit }, outbox) {
      const definition = definitionOf(form);
      await slugChecked(
        withOutbox(pool, outbox, async (client) => {
          assertTagUnchanged(await ownedRow(client, workspaceId, form.id), formOf, expectedTag, { kind: 'form', id: form.id });
          await run(
            client,
            'UPDATE forms SET folder_id = $1, name = $2, slug = $3, version = $4, definition = $5, updated_at = $6, metadata = $7 WHERE id = $8',
            [form.folder_id, form.name, form.slug, form.version, definition, form.updated_at, JSON.stringify(form.metadata), form.id],
          );
          await insertSnapshot(client, form, definition);
          await run(client, 'DELETE FROM form_versions WHERE form_id = $1 AND version <= $2', [form.id, form.version - keepVersions]);
          await run(client, ...formLogoSql.keepOnly.bindPostgres({ formId: form.id, sha256: form.logo && storedLogoOf(form.logo).sha256 }));
          if (audit) await insertAuditEvent(client, audit);
        }),
      ).catch(folderChecked(form));
    },
    async delete(workspaceId, id, at, audit, outbox, options = {}) {
      await withOutbox(pool, outbox, async (client) => {
        // Locked first: a submission being inserted holds the form's row shared until it commits, so the cascade
        // below sees it, and one that comes later waits and then finds no form (never a foreign-key error here).
        assertTagUnchanged(await ownedRow(client, workspaceId, id), formOf, options.expectedTag, { kind: 'form', id });
        // A key attached to a deleted form can reach nothing any more: it is revoked, as for a folder.
        for (const row of await attachedKeys(client, 'form', id))
          await revokeKeyRow(client, row.id, { at, reason: null, cause: 'form_deleted' }, audit.revokedKey(toApiKey(row)));
        for (const sql of deleteFormCascade) await run(client, sql, [id]);
        // A transfer still waiting for an answer has nothing left to move.
        await run(client, `UPDATE form_transfers SET status = 'canceled', resolved_at = $1 WHERE form_id = $2 AND status = 'pending'`, [
          at,
          id,
        ]);
        if (audit.form) await insertAuditEvent(client, audit.form);
      });
    },
    async listVersions(formId, page) {
      const params = new Parameters();
      const result = await keysetPage<FormVersionSummaryRow>(pool, {
        from: 'form_versions v',
        alias: 'v',
        select: versionSummaryColumns,
        where: `v.form_id = ${params.add(formId)}`,
        params,
        page,
      });
      return { data: result.data.map(toVersionSummary), hasMore: result.hasMore };
    },
    async getVersion(formId, version) {
      const row = await one<FormVersionRow>(pool, 'SELECT * FROM form_versions WHERE form_id = $1 AND version = $2', [formId, version]);
      return row && toVersion(row);
    },
  };
}

/**
 * Moves a form and its rows to another workspace and revokes the keys attached to it, with their audit
 * events; returns the revoked keys' ids. Runs inside the caller's transaction (an accepted transfer), which
 * fails on the slug constraint, moving nothing, when the destination already has the form's slug.
 */
export async function moveFormRows(
  db: Queryable,
  formId: string,
  to: string,
  at: string,
  revokedKeyAudit: (key: Schema<'ApiKey'>) => AuditEventInput,
): Promise<string[]> {
  await run(db, 'UPDATE forms SET workspace_id = $1, folder_id = NULL, updated_at = $2 WHERE id = $3', [to, at, formId]);
  for (const sql of transferFormRows) await run(db, sql, [to, formId]);
  // The form's submission events hold its answers: they leave the old workspace's integrations (no replay,
  // no pending retries) just as they would if the form were deleted there.
  for (const sql of integrationFormCascade) await run(db, sql, [formId]);
  const revoked: string[] = [];
  for (const row of await attachedKeys(db, 'form', formId)) {
    if (await revokeKeyRow(db, row.id, { at, reason: null, cause: 'form_transferred' }, revokedKeyAudit(toApiKey(row))))
      revoked.push(row.id);
  }
  return revoked;
}

/** Everything that belongs to a form, deleted with it in one transaction, children first (parameter: the form id). */
const deleteFormCascade: string[] = [
  ...submissionFormCascade,
  ...integrationFormCascade,
  'DELETE FROM form_versions WHERE form_id = $1',
  'DELETE FROM form_logos WHERE form_id = $1',
  'DELETE FROM forms WHERE id = $1',
];

/** Rows that follow a form to its new workspace (parameters: workspace id, form id). */
const transferFormRows: string[] = [...submissionFormTransfer];
