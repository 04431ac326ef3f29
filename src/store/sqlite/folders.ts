import type Database from 'better-sqlite3';
import type { Environment } from '../../contract.js';
import { StoreConflict } from '../errors.js';
import { type ApiKeyRow, toApiKey } from '../rows/api-keys.js';
import { type FolderRow, toFolder, toFolderRecord } from '../rows/folders.js';
import { folderColumns, folderParameters, folderSql } from '../sql/folders.js';
import type { FolderStore } from '../types.js';
import { revokeKeyRow } from './api-keys.js';
import { insertAuditEvent } from './audit-events.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { prepared } from './shared-sql.js';
import { statement, transaction } from './statements.js';

export function sqliteFolders(db: Database.Database): FolderStore {
  return {
    async list(workspaceId, environments, page) {
      const where = `d.workspace_id = ? AND d.environment IN (${environments.map(() => '?').join(', ')})`;
      const result = keysetPage<FolderRow>(db, {
        from: 'folders d',
        alias: 'd',
        select: folderColumns,
        where,
        params: [workspaceId, ...environments],
        page,
      });
      return { data: result.data.map(toFolder), hasMore: result.hasMore };
    },
    async get(workspaceId, id) {
      const row = prepared(db, folderSql.get).get({ id, workspaceId }) as FolderRow | undefined;
      return row && toFolderRecord(row);
    },
    async create(record, outbox) {
      withOutbox(db, outbox, () => {
        prepared(db, folderSql.insert).run(folderParameters(record));
      });
    },
    async update(workspaceId, id, change) {
      return transaction(db, 'immediate', () => {
        const row = prepared(db, folderSql.get).get({ id, workspaceId }) as FolderRow | undefined;
        if (!row) return undefined;
        const current = toFolder(row);
        const { name, metadata } = change(current);
        prepared(db, folderSql.update).run({ id, name, metadata: JSON.stringify(metadata) });
        // What was written over what was read: nothing else changes inside the transaction.
        return { ...current, name, metadata };
      });
    },
    async delete(id, at, audit) {
      return transaction(db, 'deferred', () => {
        const folder = prepared(db, folderSql.environmentForDelete).get({ id }) as { environment: Environment } | undefined;
        if (!folder) return;
        const forms = prepared(db, folderSql.countForms).get({ id, environment: folder.environment }) as { n: number };
        if (forms.n > 0) throw new StoreConflict('folder_not_empty');
        prepared(db, folderSql.unfileForms).run({ id });
        const attached = statement(
          db,
          `SELECT * FROM api_keys WHERE attachment_type = 'folder' AND attachment_id = ? AND status = 'active'`,
        ).all(id) as ApiKeyRow[];
        for (const row of attached)
          revokeKeyRow(db, row.id, { at, reason: null, cause: 'folder_deleted' }, audit.revokedKey(toApiKey(row)));
        prepared(db, folderSql.delete).run({ id });
        insertAuditEvent(db, audit.folder);
      });
    },
  };
}
