import type { Schema } from '../../contract.js';
import type { PublishableKeyCredential, PublishableKeyRecord } from '../types.js';
import { toAttachment } from './api-keys.js';
import { fromJson } from './json.js';
import { joinedWorkspaceColumns, toJoinedWorkspace } from './workspaces.js';

type PublishableKey = Schema<'PublishableKey'>;

export interface PublishableKeyRow {
  id: string;
  workspace_id: string;
  name: string;
  environment: PublishableKey['environment'];
  value: string;
  allowed_origins: string | string[];
  attachment_type: 'workspace' | 'form' | 'folder';
  attachment_id: string | null;
  status: PublishableKey['status'];
  token_secret: Buffer;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
  /** Selected with the credential only (0/1 in SQLite, a boolean in PostgreSQL). */
  hosted_page?: boolean | number;
}

export const toPublishableKey = (row: PublishableKeyRow): PublishableKey => ({
  id: row.id,
  object: 'publishable_key',
  name: row.name,
  environment: row.environment,
  value: row.value,
  allowed_origins: fromJson<string[]>(row.allowed_origins),
  attachment: toAttachment(row),
  status: row.status,
  revoked_at: row.revoked_at,
  last_used_at: row.last_used_at,
  created_at: row.created_at,
});

export const toPublishableKeyRecord = (row: PublishableKeyRow): PublishableKeyRecord => ({
  key: toPublishableKey(row),
  workspaceId: row.workspace_id,
  tokenSecret: row.token_secret,
});

export const toPublishableKeyCredential = (row: PublishableKeyRow): PublishableKeyCredential => ({
  ...toPublishableKeyRecord(row),
  workspace: toJoinedWorkspace(row as unknown as Record<string, unknown>),
  hostedPage: Boolean(row.hosted_page),
});

/** The key found by its value, joined to its workspace (the workspace's columns under `workspace_`). */
export const publishableCredentialQuery = (placeholder: string): string =>
  `SELECT k.*, ${joinedWorkspaceColumns('w')}, EXISTS (SELECT 1 FROM hosted_page_keys h WHERE h.key_id = k.id) AS hosted_page
   FROM publishable_keys k JOIN workspaces w ON w.id = k.workspace_id
   WHERE k.value = ${placeholder}`;
