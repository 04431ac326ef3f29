import { paginate } from '../../client/paginate.js';
import type { Folder } from '../../client/schemas.js';
import { api } from '../state.js';

/** Every folder of the workspace (they are few: a folder list, not a data set), newest first. */
export async function allFolders(): Promise<Folder[]> {
  const folders: Folder[] = [];
  for await (const folder of paginate(api(), '/folders', { params: { query: { limit: 100 } } })) folders.push(folder);
  return folders;
}
