import type { Attachment, Schema } from '../../contract.js';
import type { ApiKeyCredential, ApiKeyRecord } from '../types.js';
import { fromJson } from './json.js';
import { joinedWorkspaceColumns, toJoinedWorkspace } from './workspaces.js';

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
  ip_allowlist: string | string[];
  status: ApiKey['status'];
  revoked_at: string | null;
  revocation_reason: string | null;
  revocation_cause: ApiKey['revocation_cause'];
  secret_hash: Buffer;
  secret_hint: string;
  last_used_at: string | null;
  created_at: string;
}

/** A key's attachment from its two columns; API keys and publishable keys store it alike. */
export function toAttachment(row: Pick<ApiKeyRow, 'attachment_type' | 'attachment_id'>): Attachment {
  if (row.attachment_type === 'form') return { type: 'form', form_id: row.attachment_id! };
  if (row.attachment_type === 'folder') return { type: 'folder', folder_id: row.attachment_id! };
  return { type: 'workspace' };
}

/** The attachment as its two columns (`attachment_type`, `attachment_id`). */
export const attachmentIdOf = (attachment: ApiKey['attachment']): string | null =>
  attachment.type === 'form' ? attachment.form_id : attachment.type === 'folder' ? attachment.folder_id : null;

export const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  object: 'api_key',
  name: row.name,
  environment: row.environment,
  scope: row.scope,
  attachment: toAttachment(row),
  expires_at: row.expires_at,
  ip_allowlist: fromJson<string[]>(row.ip_allowlist),
  status: row.status,
  revoked_at: row.revoked_at,
  revocation_reason: row.revocation_reason,
  revocation_cause: row.revocation_cause,
  secret_hint: row.secret_hint,
  last_used_at: row.last_used_at,
  created_at: row.created_at,
});

export const toApiKeyRecord = (row: ApiKeyRow): ApiKeyRecord => ({
  key: toApiKey(row),
  workspaceId: row.workspace_id,
  secretHash: row.secret_hash,
});

/** The key with the secret hash, joined to its workspace (the workspace's columns under `workspace_`). */
export const credentialQuery = (placeholder: string): string =>
  `SELECT k.*, ${joinedWorkspaceColumns('w')} FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
   WHERE k.secret_hash = ${placeholder}`;

export const toApiKeyCredential = (row: ApiKeyRow): ApiKeyCredential => ({
  ...toApiKeyRecord(row),
  workspace: toJoinedWorkspace(row as unknown as Record<string, unknown>),
});
