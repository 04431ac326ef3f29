import { shared } from './statement.js';

/**
 * A key's attachment, checked again in the key's own write: the form or folder must still be the workspace's. On
 * PostgreSQL its row is held shared until the key commits, so a delete or a transfer's accept (each locks the row,
 * then revokes the keys attached to it) comes wholly before the key, which is then refused, or after it, and revokes
 * it too. The SQLite store's write is one synchronous transaction.
 */
export const attachmentSql = {
  form: shared('SELECT 1 AS found FROM forms WHERE id = :id AND workspace_id = :workspaceId', { postgresLock: 'FOR SHARE' }),
  folder: shared('SELECT 1 AS found FROM folders WHERE id = :id AND workspace_id = :workspaceId', { postgresLock: 'FOR SHARE' }),
};
