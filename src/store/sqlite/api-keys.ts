import type Database from 'better-sqlite3';
import type { Schema } from '../../contract.js';
import type { ApiKeyRecord, ApiKeyStore, AuditEventInput } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { statement } from './statements.js';

type ApiKey = Schema<'ApiKey'>;

export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  name: string;
  environment: ApiKey['environment'];
  scope: ApiKey['scope'];
  attachment_type: 'workspace' | 'form' | 'folder';
  attachment_id: string | null;
  expires_at: string | null;
  ip_allowlist: string;
  status: ApiKey['status'];
  revoked_at: string | null;
  revocation_reason: string | null;
  revocation_cause: ApiKey['revocation_cause'];
  secret_hash: Buffer;
  secret_hint: string;
  last_used_at: string | null;
  created_at: string;
}

function toAttachment(row: ApiKeyRow): ApiKey['attachment'] {
  if (row.attachment_type === 'form') return { type: 'form', form_id: row.attachment_id! };
  if (row.attachment_type === 'folder') return { type: 'folder', folder_id: row.attachment_id! };
  return { type: 'workspace' };
}

export const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  object: 'api_key',
  name: row.name,
  environment: row.environment,
  scope: row.scope,
  attachment: toAttachment(row),
  expires_at: row.expires_at,
  ip_allowlist: JSON.parse(row.ip_allowlist) as string[],
  status: row.status,
  revoked_at: row.revoked_at,
  revocation_reason: row.revocation_reason,
  revocation_cause: row.revocation_cause,
  secret_hint: row.secret_hint,
  last_used_at: row.last_used_at,
  created_at: row.created_at,
});

const toRecord = (row: ApiKeyRow): ApiKeyRecord => ({ key: toApiKey(row), workspaceId: row.workspace_id, secretHash: row.secret_hash });

/**
 * Revokes one active key and writes its audit event; used by revocation, expiry, form transfer and folder
 * deletion, always inside the caller's transaction.
 */
export function revokeKeyRow(
  db: Database.Database,
  id: string,
  revocation: { at: string; reason: string | null; cause: NonNullable<ApiKey['revocation_cause']> },
  audit: AuditEventInput,
): boolean {
  const changed = statement(
    db,
    `UPDATE api_keys SET status = 'revoked', revoked_at = ?, revocation_reason = ?, revocation_cause = ?
     WHERE id = ? AND status = 'active'`,
  ).run(revocation.at, revocation.reason, revocation.cause, id).changes;
  if (changed === 1) insertAuditEvent(db, audit);
  return changed === 1;
}

export function selectApiKeyRow(db: Database.Database, id: string): ApiKeyRow | undefined {
  return statement(db, 'SELECT * FROM api_keys WHERE id = ?').get(id) as ApiKeyRow | undefined;
}

export function sqliteApiKeys(db: Database.Database): ApiKeyStore {
  return {
    async create({ key, workspaceId, secretHash }, audit, outbox) {
      const attachmentId =
        key.attachment.type === 'form' ? key.attachment.form_id : key.attachment.type === 'folder' ? key.attachment.folder_id : null;
      withOutbox(db, outbox, () => {
        statement(
          db,
          `INSERT INTO api_keys (id, workspace_id, name, environment, scope, attachment_type, attachment_id, expires_at,
             ip_allowlist, status, secret_hash, secret_hint, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)`,
        ).run(
          key.id,
          workspaceId,
          key.name,
          key.environment,
          key.scope,
          key.attachment.type,
          attachmentId,
          key.expires_at,
          JSON.stringify(key.ip_allowlist),
          secretHash,
          key.secret_hint,
          key.created_at,
        );
        insertAuditEvent(db, audit);
      });
    },
    async findBySecretHash(hash) {
      const row = statement(db, 'SELECT * FROM api_keys WHERE secret_hash = ?').get(hash) as ApiKeyRow | undefined;
      return row && toRecord(row);
    },
    async get(workspaceId, id) {
      const row = statement(db, 'SELECT * FROM api_keys WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as ApiKeyRow | undefined;
      return row && toRecord(row);
    },
    async list(workspaceId, filter, page) {
      const where = ['k.workspace_id = ?'];
      const params: unknown[] = [workspaceId];
      if (filter.status !== undefined) {
        where.push('k.status = ?');
        params.push(filter.status);
      }
      const result = keysetPage<ApiKeyRow>(db, { from: 'api_keys k', alias: 'k', select: 'k.*', where: where.join(' AND '), params, page });
      return { data: result.data.map(toApiKey), hasMore: result.hasMore };
    },
    async revoke(id, revocation, audit) {
      db.transaction(() => revokeKeyRow(db, id, revocation, audit))();
      const row = selectApiKeyRow(db, id);
      return row && toApiKey(row);
    },
    async touch(id, at) {
      statement(db, 'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)').run(at, id, at);
    },
    async listExpired(now, limit) {
      const rows = statement(
        db,
        `SELECT * FROM api_keys WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?`,
      ).all(now, limit) as ApiKeyRow[];
      return rows.map(toRecord);
    },
  };
}
