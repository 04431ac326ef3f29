import type { Folder } from '../../../client/schemas.js';
import type { FormDraft } from '../../forms/draft.js';
import { languageOptions } from '../../forms/languages.js';
import { DraftSelect } from './DraftSelect.js';
import { DraftText } from './DraftText.js';

/**
 * The form's name, its slug, its folder (moving a form changes which folder-attached keys reach it) and the language
 * it is written in, which the hosted page speaks.
 */
export function SettingsSection(props: {
  draft: FormDraft;
  folders: readonly Folder[];
  isNew: boolean;
  onDraft: (draft: FormDraft) => void;
}) {
  const { draft } = props;
  const folderOptions = [{ value: '', label: 'No folder' }, ...props.folders.map((folder) => ({ value: folder.id, label: folder.name }))];
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <div class="settings-inputs">
        <DraftText pointer="/name" label="Name" value={draft.name} onValue={(name) => props.onDraft({ ...draft, name })} />
        <DraftText
          pointer="/slug"
          label="Slug"
          hint={props.isNew ? 'Lower-case words joined by -; left empty, it is made from the name.' : 'Lower-case words joined by -.'}
          value={draft.slug}
          onValue={(slug) => props.onDraft({ ...draft, slug })}
        />
        <DraftSelect
          pointer="/folder_id"
          label="Folder"
          value={draft.folder_id ?? ''}
          options={folderOptions}
          onValue={(folder) => props.onDraft({ ...draft, folder_id: folder === '' ? null : folder })}
        />
      </div>
      {/* Its own row: a language's names are long, and its hint says what the choice changes. */}
      <div class="stacked-inputs">
        <DraftSelect
          pointer="/language"
          label="Language"
          hint="The page's own words (buttons, errors, progress) in this language; right to left for Arabic and Hebrew. Your texts show as written."
          value={draft.language}
          options={languageOptions(draft.language)}
          onValue={(language) => props.onDraft({ ...draft, language })}
        />
      </div>
    </section>
  );
}
