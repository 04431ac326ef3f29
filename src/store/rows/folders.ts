import type { Environment, Schema } from '../../contract.js';
import type { FolderRecord } from '../types.js';
import { fromJson } from './json.js';

export interface FolderRow {
  id: string;
  workspace_id: string;
  environment: Environment;
  name: string;
  form_count: number;
  created_at: string;
  metadata: unknown;
}

export const toFolder = (row: FolderRow): Schema<'Folder'> => ({
  id: row.id,
  object: 'folder',
  name: row.name,
  test: row.environment === 'test',
  form_count: row.form_count,
  created_at: row.created_at,
  metadata: fromJson<Schema<'Folder'>['metadata']>(row.metadata),
});

export const toFolderRecord = (row: FolderRow): FolderRecord => ({
  folder: toFolder(row),
  workspaceId: row.workspace_id,
  environment: row.environment,
});
