import { useState } from 'preact/hooks';
import type { Folder } from '../../../client/schemas.js';
import { unwrap } from '../../api.js';
import { allFolders } from '../../forms/folders.js';
import { route, setQuery } from '../../router.js';
import { api, canEdit, environment, isAdmin } from '../../state.js';
import { useResource } from '../../use-resource.js';
import { Link } from '../Link.js';
import { Loading } from '../Loading.js';
import { Pager } from '../Pager.js';
import { ProblemNotice } from '../ProblemNotice.js';
import { FolderPanel } from './FolderPanel.js';
import { FormTable } from './FormTable.js';
import { IncomingTransfers } from './IncomingTransfers.js';

const pageSize = 25;

/**
 * The forms list: loads the folders and a page of forms (filtered by the folder in the address, `?folder=`), and
 * sends the folder changes; FolderPanel and FormTable show them.
 */
export function FormsHome() {
  const query = route.value.query;
  const folderId = query.get('folder') ?? undefined;
  const cursor = { starting_after: query.get('after') ?? undefined, ending_before: query.get('before') ?? undefined };
  const folders = useResource(allFolders, 'folders');
  const forms = useResource(
    async () => unwrap(await api().GET('/forms', { params: { query: { limit: pageSize, folder_id: folderId, ...cursor } } })),
    query.toString(),
  );
  const [folderError, setFolderError] = useState<unknown>();

  const folderWrite = async (write: () => Promise<unknown>): Promise<boolean> => {
    setFolderError(undefined);
    try {
      await write();
      folders.reload();
      return true;
    } catch (caught) {
      setFolderError(caught);
      return false;
    }
  };
  const onCreate = (name: string) => folderWrite(async () => unwrap(await api().POST('/folders', { body: { name } })));
  const onRename = (folder: Folder, name: string) =>
    folderWrite(async () => unwrap(await api().PATCH('/folders/{id}', { params: { path: { id: folder.id } }, body: { name } })));
  const onDelete = async (folder: Folder) => {
    const deleted = await folderWrite(async () => unwrap(await api().DELETE('/folders/{id}', { params: { path: { id: folder.id } } })));
    if (deleted && folderId === folder.id) setQuery(new URLSearchParams());
  };

  const page = forms.data;
  const folderName = folders.data?.find((folder) => folder.id === folderId)?.name;
  const turn = (to: Record<string, string | undefined>) => {
    const next = new URLSearchParams();
    if (folderId) next.set('folder', folderId);
    for (const [key, value] of Object.entries(to)) if (value) next.set(key, value);
    setQuery(next);
  };
  return (
    <section aria-labelledby="forms-heading" class="forms-home">
      <div class="screen-head">
        <h1 id="forms-heading">Forms</h1>
        {canEdit() && (
          <Link to={folderId ? `forms/new?folder=${encodeURIComponent(folderId)}` : 'forms/new'} class="button primary">
            New form
          </Link>
        )}
      </div>
      {isAdmin() && environment.value === 'live' && <IncomingTransfers onAccepted={forms.reload} />}
      <div class="forms-layout">
        <div class="forms-folders">
          <ProblemNotice error={folders.error} onRetry={folders.reload} />
          <ProblemNotice error={folderError} />
          <FolderPanel
            folders={folders.data ?? []}
            current={folderId}
            canEdit={canEdit()}
            error={folderError}
            onCreate={onCreate}
            onRename={onRename}
            onDelete={onDelete}
          />
        </div>
        <div class="forms-list">
          <ProblemNotice error={forms.error} onRetry={forms.reload} />
          {!page && forms.loading && <Loading what="forms" />}
          {page && (
            <FormTable
              forms={page.data}
              folders={folders.data ?? []}
              caption={folderId ? `Forms in ${folderName ?? 'this folder'}` : 'All forms'}
            />
          )}
          {page && (
            <Pager
              label="Forms pages"
              hasPrevious={cursor.starting_after !== undefined || (cursor.ending_before !== undefined && page.has_more)}
              hasNext={cursor.ending_before !== undefined || page.has_more}
              onPrevious={() => turn({ before: page.data[0]?.id })}
              onNext={() => turn({ after: page.data.at(-1)?.id })}
            />
          )}
        </div>
      </div>
    </section>
  );
}
