import type { FolderRecord } from '../types.js';
import { type ParametersOf, shared } from './statement.js';

// A live folder may also hold the sandbox's test-only forms; its count is of its own environment's forms.
export const folderColumns = 'd.*, (SELECT COUNT(*) FROM forms f WHERE f.folder_id = d.id AND f.environment = d.environment) AS form_count';

export const folderSql = {
  get: shared(`SELECT ${folderColumns} FROM folders d WHERE d.id = :id AND d.workspace_id = :workspaceId`),
  insert: shared(
    `INSERT INTO folders (id, workspace_id, environment, name, created_at, metadata)
     VALUES (:id, :workspaceId, :environment, :name, :createdAt, :metadata)`,
  ),
  // Locking the folder row holds off a form being filed into it meanwhile (its foreign key check needs a share
  // lock on this row), so the emptiness seen before deleting is still true at commit.
  environmentForDelete: shared('SELECT environment FROM folders WHERE id = :id', { postgresLock: 'FOR UPDATE' }),
  countForms: shared('SELECT COUNT(*) AS n FROM forms WHERE folder_id = :id AND environment = :environment'),
  // Test-only forms filed in a live folder do not keep it alive: they leave the folder with it.
  unfileForms: shared('UPDATE forms SET folder_id = NULL WHERE folder_id = :id'),
  delete: shared('DELETE FROM folders WHERE id = :id'),
  // An update reads the folder under this lock (PostgreSQL), so two updates merge their metadata one after the other.
  lockForUpdate: shared('SELECT id FROM folders WHERE id = :id AND workspace_id = :workspaceId', { postgresLock: 'FOR UPDATE' }),
  update: shared('UPDATE folders SET name = :name, metadata = :metadata WHERE id = :id'),
};

export const folderParameters = ({ folder, workspaceId, environment }: FolderRecord): ParametersOf<typeof folderSql.insert> => ({
  id: folder.id,
  workspaceId,
  environment,
  name: folder.name,
  createdAt: folder.created_at,
  metadata: JSON.stringify(folder.metadata),
});
