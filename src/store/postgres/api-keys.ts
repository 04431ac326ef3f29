import type pg from 'pg';
import type { Attachment, Schema } from '../../contract.js';
import { RecordNotFound } from '../errors.js';
import { type ApiKeyRow, attachmentIdOf, credentialQuery, toApiKey, toApiKeyCredential, toApiKeyRecord } from '../rows/api-keys.js';
import { attachmentSql } from '../sql/attachments.js';
import type { ApiKeyCredential, ApiKeyStore, AuditEventInput } from '../types.js';
import { insertAuditEvent } from './audit-events.js';
import { all, inTransaction, one, Parameters, type Queryable, run } from './database.js';
import { withOutbox } from './outbox.js';
import { keysetPage } from './pagination.js';
import type { RowCaches } from './row-cache.js';

type ApiKey = Schema<'ApiKey'>;

/** Built once: every authenticated request runs it. */
const credentialSql = credentialQuery('$1');

/**
 * Revokes one active key and writes its audit event; used by revocation, expiry, form transfer and folder
 * deletion, always inside the caller's transaction. The conditional UPDATE locks the row, so of two
 * concurrent revocations exactly one changes it and audits.
 */
export async function revokeKeyRow(
  db: Queryable,
  id: string,
  revocation: { at: string; reason: string | null; cause: NonNullable<ApiKey['revocation_cause']> },
  audit: AuditEventInput,
): Promise<boolean> {
  const changed = await run(
    db,
    `UPDATE api_keys SET status = 'revoked', revoked_at = $1, revocation_reason = $2, revocation_cause = $3
     WHERE id = $4 AND status = 'active'`,
    [revocation.at, revocation.reason, revocation.cause, id],
  );
  if (changed === 1) await insertAuditEvent(db, audit);
  return changed === 1;
}

/** A key's form or folder, still the workspace's, held shared until the key commits (../sql/attachments.ts). */
export async function assertAttachmentOwned(db: Queryable, workspaceId: string, attachment: Attachment): Promise<void> {
  if (attachment.type === 'workspace') return;
  const id = attachment.type === 'form' ? attachment.form_id : attachment.folder_id;
  if (!(await one(db, ...attachmentSql[attachment.type].bindPostgres({ id, workspaceId })))) throw new RecordNotFound(attachment.type, id);
}

/** Active keys attached to a form or folder, locked until the caller's transaction ends. */
export const attachedKeys = (db: Queryable, type: 'form' | 'folder', id: string): Promise<ApiKeyRow[]> =>
  all<ApiKeyRow>(
    db,
    `SELECT * FROM api_keys WHERE attachment_type = $1 AND attachment_id = $2 AND status = 'active' ORDER BY id COLLATE "C" FOR UPDATE`,
    [type, id],
  );

/** How many keys' credentials are kept in memory (row-cache.ts); a key past that is read from the table again. */
const cachedCredentials = 10_000;

export function postgresApiKeys(pool: pg.Pool, caches: RowCaches): ApiKeyStore {
  // Every authenticated request reads its key; the credential changes only when its key or workspace row does.
  const credentials = caches.create<ApiKeyCredential>(['api_keys', 'workspaces'], { rows: cachedCredentials });
  return {
    async create({ key, workspaceId, secretHash }, audit, outbox) {
      await withOutbox(pool, outbox, async (client) => {
        await assertAttachmentOwned(client, workspaceId, key.attachment);
        await run(
          client,
          `INSERT INTO api_keys (id, workspace_id, name, environment, scope, attachment_type, attachment_id, expires_at,
             ip_allowlist, status, secret_hash, secret_hint, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'active', $10, $11, $12)`,
          [
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
          ],
        );
        await insertAuditEvent(client, audit);
      });
    },
    async findBySecretHash(hash) {
      return credentials.get(hash.toString('base64'), async () => {
        const row = await one<ApiKeyRow>(pool, credentialSql, [hash]);
        return row && toApiKeyCredential(row);
      });
    },
    async get(workspaceId, id) {
      const row = await one<ApiKeyRow>(pool, 'SELECT * FROM api_keys WHERE id = $1 AND workspace_id = $2', [id, workspaceId]);
      return row && toApiKeyRecord(row);
    },
    async list(workspaceId, filter, page) {
      const params = new Parameters();
      const where = [`k.workspace_id = ${params.add(workspaceId)}`];
      if (filter.status !== undefined) where.push(`k.status = ${params.add(filter.status)}`);
      const result = await keysetPage<ApiKeyRow>(pool, {
        from: 'api_keys k',
        alias: 'k',
        select: 'k.*',
        where: where.join(' AND '),
        params,
        page,
      });
      return { data: result.data.map(toApiKey), hasMore: result.hasMore };
    },
    async revoke(id, revocation, audit) {
      await inTransaction(pool, (client) => revokeKeyRow(client, id, revocation, audit));
      const row = await one<ApiKeyRow>(pool, 'SELECT * FROM api_keys WHERE id = $1', [id]);
      return row && toApiKey(row);
    },
    async touch(id, at) {
      await run(pool, 'UPDATE api_keys SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)', [at, id]);
    },
    async listExpired(now, limit) {
      const rows = await all<ApiKeyRow>(
        pool,
        `SELECT * FROM api_keys WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
        [now, limit],
      );
      return rows.map(toApiKeyRecord);
    },
  };
}
