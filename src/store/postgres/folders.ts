import type pg from 'pg';
import type { Environment } from '../../contract.js';
import { StoreConflict } from '../errors.js';
import { toApiKey } from '../rows/api-keys.js';
import { type FolderRow, toFolder, toFolderRecord } from '../rows/folders.js';
import type { FolderStore } from '../types.js';
import { attachedKeys, revokeKeyRow } from './api-keys.js';
import { insertAuditEvent } from './audit-events.js';
import { inTransaction, one, Parameters, run } from './database.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';

// A live folder may also hold the sandbox's test-only forms; its count is of its own environment's forms.
const select = 'd.*, (SELECT COUNT(*) FROM forms f WHERE f.folder_id = d.id AND f.environment = d.environment) AS form_count';

export function postgresFolders(pool: pg.Pool): FolderStore {
  return {
    async list(workspaceId, environments, page) {
      const params = new Parameters();
      const where = `d.workspace_id = ${params.add(workspaceId)} AND d.environment = ANY(${params.add(environments)}::text[])`;
      const result = await keysetPage<FolderRow>(pool, { from: 'folders d', alias: 'd', select, where, params, page });
      return { data: result.data.map(toFolder), hasMore: result.hasMore };
    },
    async get(workspaceId, id) {
      const row = await one<FolderRow>(pool, `SELECT ${select} FROM folders d WHERE d.id = $1 AND d.workspace_id = $2`, [id, workspaceId]);
      return row && toFolderRecord(row);
    },
    async create({ folder, workspaceId, environment }, outbox) {
      await withOutbox(pool, outbox, async (client) => {
        await run(client, 'INSERT INTO folders (id, workspace_id, environment, name, created_at) VALUES ($1, $2, $3, $4, $5)', [
          folder.id,
          workspaceId,
          environment,
          folder.name,
          folder.created_at,
        ]);
      });
    },
    async delete(id, at, audit) {
      await inTransaction(pool, async (client) => {
        // Locking the folder row holds off a form being filed into it meanwhile (its foreign key check needs a
        // share lock on this row), so the emptiness seen here is still true at commit.
        const folder = await one<{ environment: Environment }>(client, 'SELECT environment FROM folders WHERE id = $1 FOR UPDATE', [id]);
        if (!folder) return;
        const forms = await one<{ n: number }>(client, 'SELECT COUNT(*) AS n FROM forms WHERE folder_id = $1 AND environment = $2', [
          id,
          folder.environment,
        ]);
        if (forms!.n > 0) throw new StoreConflict('folder_not_empty');
        // Test-only forms filed in a live folder do not keep it alive: they leave the folder with it.
        await run(client, 'UPDATE forms SET folder_id = NULL WHERE folder_id = $1', [id]);
        for (const row of await attachedKeys(client, 'folder', id))
          await revokeKeyRow(client, row.id, { at, reason: null, cause: 'folder_deleted' }, audit.revokedKey(toApiKey(row)));
        await run(client, 'DELETE FROM folders WHERE id = $1', [id]);
        await insertAuditEvent(client, audit.folder);
      });
    },
  };
}
