import type { Schema } from '../../contract.js';
import { type ParametersOf, shared } from './statement.js';

// Pending transfers past their expiry become expired when next read, at the instant they expired.
const expirePending = `UPDATE form_transfers SET status = 'expired', resolved_at = expires_at WHERE status = 'pending' AND expires_at <= :now`;

export const transferSql = {
  get: shared('SELECT * FROM form_transfers WHERE id = :id'),
  // Locked: of an accept racing a decline or a cancel, the second sees the transfer answered.
  getForAnswer: shared('SELECT * FROM form_transfers WHERE id = :id', { postgresLock: 'FOR UPDATE' }),
  // The sender must still hold the form: an accept may have moved it since the caller read it. The row lock makes
  // requests to transfer one form take turns, so the second sees the first pending.
  formOwned: shared('SELECT 1 FROM forms WHERE id = :formId AND workspace_id = :workspaceId', { postgresLock: 'FOR NO KEY UPDATE' }),
  // Locked until the accept commits: the form's other writers check ownership under the same lock, so one that
  // comes later finds the form in its new workspace.
  formForAccept: shared('SELECT workspace_id, environment FROM forms WHERE id = :formId', { postgresLock: 'FOR NO KEY UPDATE' }),
  pendingOfForm: shared(`SELECT id FROM form_transfers WHERE form_id = :formId AND status = 'pending'`),
  insert: shared(
    `INSERT INTO form_transfers (id, form_id, form_name, from_workspace_id, to_workspace_id, status, created_at, expires_at, resolved_at)
     VALUES (:id, :formId, :formName, :fromWorkspaceId, :toWorkspaceId, 'pending', :createdAt, :expiresAt, NULL)`,
  ),
  // Only a pending transfer is answered, so of two answers to one transfer the second changes nothing.
  resolve: shared(`UPDATE form_transfers SET status = :status, resolved_at = :at WHERE id = :id AND status = 'pending' RETURNING *`),
  expire: shared(`${expirePending} AND id = :id`),
  expireOfForm: shared(`${expirePending} AND form_id = :formId`),
};

/** The expiry before a list, over the transfers the workspace sees in the list's direction. */
export const transferListExpirySql = {
  incoming: shared(`${expirePending} AND to_workspace_id = :workspaceId`),
  outgoing: shared(`${expirePending} AND from_workspace_id = :workspaceId`),
  both: shared(`${expirePending} AND (to_workspace_id = :workspaceId OR from_workspace_id = :workspaceId)`),
};

export const transferParameters = (transfer: Schema<'FormTransfer'>): ParametersOf<typeof transferSql.insert> => ({
  id: transfer.id,
  formId: transfer.form_id,
  formName: transfer.form_name,
  fromWorkspaceId: transfer.from_workspace_id,
  toWorkspaceId: transfer.to_workspace_id,
  createdAt: transfer.created_at,
  expiresAt: transfer.expires_at,
});
