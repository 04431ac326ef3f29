import { attachmentIdOf } from '../rows/api-keys.js';
import type { PublishableKeyRecord, ResumeTokenRecord } from '../types.js';
import { type ParametersOf, shared } from './statement.js';

// The hosted pages' keys are the service's, not the customer's: never shown, changed, revoked or listed.
const workspaceKey =
  'SELECT * FROM publishable_keys WHERE id = :id AND workspace_id = :workspaceId AND id NOT IN (SELECT key_id FROM hosted_page_keys)';

export const publishableKeySql = {
  insert: shared(
    `INSERT INTO publishable_keys (id, workspace_id, name, environment, value, allowed_origins, attachment_type, attachment_id,
       status, token_secret, created_at)
     VALUES (:id, :workspaceId, :name, :environment, :value, :allowedOrigins, :attachmentType, :attachmentId, 'active',
       :tokenSecret, :createdAt)`,
  ),
  get: shared(workspaceKey),
  // The key a change compares with, locked on PostgreSQL: the check and the write see the same row, and two changes
  // of one key (an update, a revocation) queue. NO KEY: the row's key does not change.
  getForChange: shared(workspaceKey, { postgresLock: 'FOR NO KEY UPDATE' }),
  hostedPageKey: shared(
    `SELECT k.* FROM hosted_page_keys h JOIN publishable_keys k ON k.id = h.key_id
     WHERE h.workspace_id = :workspaceId AND h.environment = :environment`,
  ),
  claimHostedPageKey: shared(
    `INSERT INTO hosted_page_keys (workspace_id, environment, key_id) VALUES (:workspaceId, :environment, :keyId)
     ON CONFLICT (workspace_id, environment) DO NOTHING`,
  ),
  deleteUnclaimed: shared('DELETE FROM publishable_keys WHERE id = :id'),
  byId: shared('SELECT * FROM publishable_keys WHERE id = :id'),
  byIdForChange: shared('SELECT * FROM publishable_keys WHERE id = :id', { postgresLock: 'FOR NO KEY UPDATE' }),
  update: shared('UPDATE publishable_keys SET name = :name, allowed_origins = :allowedOrigins WHERE id = :id'),
  revoke: shared(`UPDATE publishable_keys SET status = 'revoked', revoked_at = :at WHERE id = :id AND status = 'active'`),
  touch: shared('UPDATE publishable_keys SET last_used_at = :at WHERE id = :id AND (last_used_at IS NULL OR last_used_at < :at)'),
  saveResumeToken: shared(
    'INSERT INTO public_resume_tokens (submission_id, token_hash, expires_at) VALUES (:submissionId, :tokenHash, :expiresAt)',
  ),
  findResumeToken: shared('SELECT submission_id, token_hash, expires_at FROM public_resume_tokens WHERE submission_id = :submissionId'),
};

export const publishableKeyParameters = ({
  key,
  workspaceId,
  tokenSecret,
}: PublishableKeyRecord): ParametersOf<typeof publishableKeySql.insert> => ({
  id: key.id,
  workspaceId,
  name: key.name,
  environment: key.environment,
  value: key.value,
  allowedOrigins: JSON.stringify(key.allowed_origins),
  attachmentType: key.attachment.type,
  attachmentId: attachmentIdOf(key.attachment),
  tokenSecret,
  createdAt: key.created_at,
});

/** Not the customer's: no page may list them, so the list leaves them out. */
export const notHostedPageKey = 'k.id NOT IN (SELECT key_id FROM hosted_page_keys)';

export const resumeTokenParameters = (token: ResumeTokenRecord): ParametersOf<typeof publishableKeySql.saveResumeToken> => ({
  submissionId: token.submissionId,
  tokenHash: token.tokenHash,
  expiresAt: token.expiresAt,
});

export interface ResumeTokenRow {
  submission_id: string;
  token_hash: Buffer;
  expires_at: string;
}

export const toResumeToken = (row: ResumeTokenRow): ResumeTokenRecord => ({
  submissionId: row.submission_id,
  tokenHash: row.token_hash,
  expiresAt: row.expires_at,
});
