import type Database from 'better-sqlite3';
import type { Attachment, Schema } from '../../contract.js';
import { deepFreeze } from '../../frozen.js';
import { RecordNotFound } from '../errors.js';
import { type ApiKeyRow, attachmentIdOf, credentialQuery, toApiKey, toApiKeyCredential, toApiKeyRecord } from '../rows/api-keys.js';
import { attachmentSql } from '../sql/attachments.js';
import type { ApiKeyCredential, ApiKeyStore, AuditEventInput } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import { rowCaches } from './row-cache.js';
import { prepared } from './shared-sql.js';
import { statement, transaction } from './statements.js';

type ApiKey = Schema<'ApiKey'>;

/** Built once: every authenticated request runs it, and a fresh string would be rebuilt and rehashed each time. */
const credentialSql = credentialQuery('?');

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

/** How many keys' credentials are kept in memory (row-cache.ts); a key past that is read from the table again. */
const cachedCredentials = 10_000;

/** A key's form or folder, still the workspace's, checked in the key's transaction (../sql/attachments.ts). */
export function assertAttachmentOwned(db: Database.Database, workspaceId: string, attachment: Attachment): void {
  if (attachment.type === 'workspace') return;
  const id = attachment.type === 'form' ? attachment.form_id : attachment.folder_id;
  if (!prepared(db, attachmentSql[attachment.type]).get({ id, workspaceId })) throw new RecordNotFound(attachment.type, id);
}

export function sqliteApiKeys(db: Database.Database): ApiKeyStore {
  // Every authenticated request reads its key; the credential changes only when its key or workspace row does.
  const credentials = rowCaches(db).create<ApiKeyCredential>(['api_keys', 'workspaces'], { rows: cachedCredentials });
  return {
    async create({ key, workspaceId, secretHash }, audit, outbox) {
      withOutbox(db, outbox, () => {
        assertAttachmentOwned(db, workspaceId, key.attachment);
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
          attachmentIdOf(key.attachment),
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
      return credentials.get(hash.toString('base64'), () => {
        const row = statement(db, credentialSql).get(hash) as ApiKeyRow | undefined;
        return row && deepFreeze(toApiKeyCredential(row));
      });
    },
    async get(workspaceId, id) {
      const row = statement(db, 'SELECT * FROM api_keys WHERE id = ? AND workspace_id = ?').get(id, workspaceId) as ApiKeyRow | undefined;
      return row && toApiKeyRecord(row);
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
      transaction(db, 'deferred', () => revokeKeyRow(db, id, revocation, audit));
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
      return rows.map(toApiKeyRecord);
    },
  };
}
