import type Database from 'better-sqlite3';
import type { Environment } from '../../contract.js';
import { StoreConflict } from '../errors.js';
import { type ApiKeyRow, toApiKey } from '../rows/api-keys.js';
import { type FolderRow, toFolder, toFolderRecord } from '../rows/folders.js';
import type { FolderStore } from '../types.js';
import { revokeKeyRow } from './api-keys.js';
import { insertAuditEvent } from './audit-events.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { statement, transaction } from './statements.js';

// A live folder may also hold the sandbox's test-only forms; its count is of its own environment's forms.
const select = 'd.*, (SELECT COUNT(*) FROM forms f WHERE f.folder_id = d.id AND f.environment = d.environment) AS form_count';

export function sqliteFolders(db: Database.Database): FolderStore {
  return {
    async list(workspaceId, environments, page) {
      const where = `d.workspace_id = ? AND d.environment IN (${environments.map(() => '?').join(', ')})`;
      const result = keysetPage<FolderRow>(db, {
        from: 'folders d',
        alias: 'd',
        select,
        where,
        params: [workspaceId, ...environments],
        page,
      });
      return { data: result.data.map(toFolder), hasMore: result.hasMore };
    },
    async get(workspaceId, id) {
      const row = statement(db, `SELECT ${select} FROM folders d WHERE d.id = ? AND d.workspace_id = ?`).get(id, workspaceId) as
        | FolderRow
        | undefined;
      return row && toFolderRecord(row);
    },
    async create({ folder, workspaceId, environment }, outbox) {
      withOutbox(db, outbox, () => {
        statement(db, 'INSERT INTO folders (id, workspace_id, environment, name, created_at) VALUES (?, ?, ?, ?, ?)').run(
          folder.id,
          workspaceId,
          environment,
          folder.name,
          folder.created_at,
        );
      });
    },
    async delete(id, at, audit) {
      return transaction(db, 'deferred', () => {
        const folder = statement(db, 'SELECT environment FROM folders WHERE id = ?').get(id) as { environment: Environment } | undefined;
        if (!folder) return;
        const forms = statement(db, 'SELECT COUNT(*) AS n FROM forms WHERE folder_id = ? AND environment = ?').get(
          id,
          folder.environment,
        ) as { n: number };
        if (forms.n > 0) throw new StoreConflict('folder_not_empty');
        // Test-only forms filed in a live folder do not keep it alive: they leave the folder with it.
        statement(db, 'UPDATE forms SET folder_id = NULL WHERE folder_id = ?').run(id);
        const attached = statement(
          db,
          `SELECT * FROM api_keys WHERE attachment_type = 'folder' AND attachment_id = ? AND status = 'active'`,
        ).all(id) as ApiKeyRow[];
        for (const row of attached)
          revokeKeyRow(db, row.id, { at, reason: null, cause: 'folder_deleted' }, audit.revokedKey(toApiKey(row)));
        statement(db, 'DELETE FROM folders WHERE id = ?').run(id);
        insertAuditEvent(db, audit.folder);
      });
    },
  };
}
