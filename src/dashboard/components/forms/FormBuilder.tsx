import type { Folder } from '../../../client/schemas.js';
import { BuilderContext } from '../../forms/builder-context.js';
import type { FormDraft } from '../../forms/draft.js';
import { AppearanceSection } from './AppearanceSection.js';
import { FormPreview } from './FormPreview.js';
import { HostingSection } from './HostingSection.js';
import { LogicEditor } from './LogicEditor.js';
import { ScoringEditor } from './ScoringEditor.js';
import { SettingsSection } from './SettingsSection.js';
import { SpamProtectionSection } from './SpamProtectionSection.js';
import { StepsEditor } from './StepsEditor.js';

/**
 * The builder's layout: the draft's sections (settings, steps and fields, logic, scoring, spam protection, hosting,
 * appearance) beside the live preview. Every change goes to `onDraft`; the last write's error reaches each input
 * through the builder context, and a viewer's builder is read-only.
 */
export function FormBuilder(props: {
  draft: FormDraft;
  onDraft: (draft: FormDraft) => void;
  folders: readonly Folder[];
  isNew: boolean;
  error: unknown;
  readOnly: boolean;
  previewStylesheet: string;
}) {
  const { draft, onDraft } = props;
  return (
    <BuilderContext.Provider value={{ error: props.error, readOnly: props.readOnly }}>
      <div class="builder">
        <div class="builder-editor">
          <SettingsSection draft={draft} folders={props.folders} isNew={props.isNew} onDraft={onDraft} />
          <StepsEditor steps={draft.steps} onSteps={(steps) => onDraft({ ...draft, steps })} />
          <LogicEditor logic={draft.logic} steps={draft.steps} onLogic={(logic) => onDraft({ ...draft, logic })} />
          <ScoringEditor scoring={draft.scoring} steps={draft.steps} onScoring={(scoring) => onDraft({ ...draft, scoring })} />
          <SpamProtectionSection value={draft.spam_protection} onValue={(spam_protection) => onDraft({ ...draft, spam_protection })} />
          <HostingSection hosting={draft.hosting} onHosting={(hosting) => onDraft({ ...draft, hosting })} />
          <AppearanceSection appearance={draft.appearance} onAppearance={(appearance) => onDraft({ ...draft, appearance })} />
        </div>
        <div class="builder-preview">
          <FormPreview draft={draft} stylesheet={props.previewStylesheet} />
        </div>
      </div>
    </BuilderContext.Provider>
  );
}
