import type pg from 'pg';
import type { Environment } from '../../contract.js';
import { StoreConflict } from '../errors.js';
import { toApiKey } from '../rows/api-keys.js';
import { type FolderRow, toFolder, toFolderRecord } from '../rows/folders.js';
import { folderColumns, folderParameters, folderSql } from '../sql/folders.js';
import type { FolderStore } from '../types.js';
import { attachedKeys, revokeKeyRow } from './api-keys.js';
import { insertAuditEvent } from './audit-events.js';
import { inTransaction, one, Parameters, run } from './database.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';

export function postgresFolders(pool: pg.Pool): FolderStore {
  return {
    async list(workspaceId, environments, page) {
      const params = new Parameters();
      const where = `d.workspace_id = ${params.add(workspaceId)} AND d.environment = ANY(${params.add(environments)}::text[])`;
      const result = await keysetPage<FolderRow>(pool, { from: 'folders d', alias: 'd', select: folderColumns, where, params, page });
      return { data: result.data.map(toFolder), hasMore: result.hasMore };
    },
    async get(workspaceId, id) {
      const row = await one<FolderRow>(pool, ...folderSql.get.bindPostgres({ id, workspaceId }));
      return row && toFolderRecord(row);
    },
    async create(record, outbox) {
      await withOutbox(pool, outbox, async (client) => {
        await run(client, ...folderSql.insert.bindPostgres(folderParameters(record)));
      });
    },
    async update(workspaceId, id, change) {
      return inTransaction(pool, async (client) => {
        if (!(await one(client, ...folderSql.lockForUpdate.bindPostgres({ id, workspaceId })))) return undefined;
        const current = toFolder((await one<FolderRow>(client, ...folderSql.get.bindPostgres({ id, workspaceId })))!);
        const { name, metadata } = change(current);
        await run(client, ...folderSql.update.bindPostgres({ id, name, metadata: JSON.stringify(metadata) }));
        // What was written over what was read: nothing else changes under the lock.
        return { ...current, name, metadata };
      });
    },
    async delete(id, at, audit) {
      await inTransaction(pool, async (client) => {
        const folder = await one<{ environment: Environment }>(client, ...folderSql.environmentForDelete.bindPostgres({ id }));
        if (!folder) return;
        const forms = await one<{ n: number }>(client, ...folderSql.countForms.bindPostgres({ id, environment: folder.environment }));
        if (forms!.n > 0) throw new StoreConflict('folder_not_empty');
        await run(client, ...folderSql.unfileForms.bindPostgres({ id }));
        for (const row of await attachedKeys(client, 'folder', id))
          await revokeKeyRow(client, row.id, { at, reason: null, cause: 'folder_deleted' }, audit.revokedKey(toApiKey(row)));
        await run(client, ...folderSql.delete.bindPostgres({ id }));
        await insertAuditEvent(client, audit.folder);
      });
    },
  };
}
