import { useState } from 'preact/hooks';
import type { Folder } from '../../../client/schemas.js';
import { ConfirmButton } from '../ConfirmButton.js';
import { Link } from '../Link.js';
import { TextField } from '../TextField.js';

/**
 * The folders as filters of the form list (All forms, then each folder with how many forms it holds), and for
 * someone who may edit: a new folder, renaming one in place, deleting an empty one.
 */
export function FolderPanel(props: {
  folders: readonly Folder[];
  current: string | undefined;
  canEdit: boolean;
  error: unknown;
  onCreate: (name: string) => Promise<boolean>;
  onRename: (folder: Folder, name: string) => Promise<boolean>;
  onDelete: (folder: Folder) => Promise<void>;
}) {
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<{ id: string; name: string } | undefined>();
  return (
    <section aria-labelledby="folders-heading" class="folder-panel">
      <h2 id="folders-heading">Folders</h2>
      <nav aria-label="Folders">
        <ul class="folder-list">
          <li>
            <Link to="forms" current={props.current === undefined}>
              All forms
            </Link>
          </li>
          {props.folders.map((folder) => (
            <li key={folder.id}>
              {renaming?.id === folder.id ? (
                <form
                  class="inline-form"
                  onSubmit={async (event) => {
                    event.preventDefault();
                    if (await props.onRename(folder, renaming.name)) setRenaming(undefined);
                  }}
                >
                  <TextField
                    id={`rename-${folder.id}`}
                    label={`New name for ${folder.name}`}
                    value={renaming.name}
                    onInput={(value) => setRenaming({ id: folder.id, name: value })}
                    error={props.error}
                    pointer="/name"
                  />
                  <div class="actions">
                    <button type="submit">Save name</button>
                    <button type="button" onClick={() => setRenaming(undefined)}>
                      Cancel
                    </button>
                  </div>
                </form>
              ) : (
                <>
                  <Link to={`forms?folder=${encodeURIComponent(folder.id)}`} current={props.current === folder.id}>
                    {folder.name}
                  </Link>{' '}
                  <span class="muted">
                    ({folder.form_count} form{folder.form_count === 1 ? '' : 's'})
                  </span>
                  {props.canEdit && (
                    <div class="actions">
                      <button type="button" onClick={() => setRenaming({ id: folder.id, name: folder.name })}>
                        Rename<span class="visually-hidden"> {folder.name}</span>
                      </button>
                      <ConfirmButton
                        label={`Delete ${folder.name}`}
                        confirm="Delete this folder?"
                        onConfirm={() => props.onDelete(folder)}
                      />
                    </div>
                  )}
                </>
              )}
            </li>
          ))}
        </ul>
      </nav>
      {props.canEdit && (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            if (await props.onCreate(name)) setName('');
          }}
        >
          <TextField
            id="new-folder"
            label="New folder"
            value={name}
            onInput={setName}
            error={renaming ? undefined : props.error}
            pointer="/name"
          />
          <button type="submit">Create folder</button>
        </form>
      )}
    </section>
  );
}
