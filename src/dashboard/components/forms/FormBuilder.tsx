import type { ComponentChildren } from 'preact';
import type { Folder, Form } from '../../../client/schemas.js';
import { BuilderContext } from '../../forms/builder-context.js';
import type { FormDraft } from '../../forms/draft.js';
import { AppearanceSection } from './AppearanceSection.js';
import { EndingSection } from './EndingSection.js';
import { FormPreview } from './FormPreview.js';
import { HostingSection } from './HostingSection.js';
import { LogicEditor } from './LogicEditor.js';
import { ScoringEditor } from './ScoringEditor.js';
import { SettingsSection } from './SettingsSection.js';
import { SpamProtectionSection } from './SpamProtectionSection.js';
import { StepsEditor } from './StepsEditor.js';
import { WelcomeSection } from './WelcomeSection.js';

/**
 * The builder's layout: the draft's sections (settings, welcome screen, steps and fields, logic, ending screen,
 * scoring, spam protection, hosting, appearance, then `children`: what is saved apart from the draft, the logo) beside
 * the live preview. Every change goes to `onDraft`; the last write's error reaches each input through the builder
 * context, and a viewer's builder is read-only.
 */
export function FormBuilder(props: {
  draft: FormDraft;
  onDraft: (draft: FormDraft) => void;
  folders: readonly Folder[];
  isNew: boolean;
  error: unknown;
  readOnly: boolean;
  previewStylesheet: string;
  /** The form's logo as published (not part of the draft), for the preview. */
  logo?: Form['logo'];
  children?: ComponentChildren;
}) {
  const { draft, onDraft } = props;
  return (
    <BuilderContext.Provider value={{ error: props.error, readOnly: props.readOnly }}>
      <div class="builder">
        <div class="builder-editor">
          <SettingsSection draft={draft} folders={props.folders} isNew={props.isNew} onDraft={onDraft} />
          <WelcomeSection welcome={draft.welcome} onWelcome={(welcome) => onDraft({ ...draft, welcome })} />
          <StepsEditor steps={draft.steps} onSteps={(steps) => onDraft({ ...draft, steps })} />
          <LogicEditor logic={draft.logic} steps={draft.steps} onLogic={(logic) => onDraft({ ...draft, logic })} />
          <EndingSection ending={draft.ending} onEnding={(ending) => onDraft({ ...draft, ending })} />
          <ScoringEditor scoring={draft.scoring} steps={draft.steps} onScoring={(scoring) => onDraft({ ...draft, scoring })} />
          <SpamProtectionSection value={draft.spam_protection} onValue={(spam_protection) => onDraft({ ...draft, spam_protection })} />
          <HostingSection hosting={draft.hosting} onHosting={(hosting) => onDraft({ ...draft, hosting })} />
          <AppearanceSection appearance={draft.appearance} onAppearance={(appearance) => onDraft({ ...draft, appearance })} />
          {props.children}
        </div>
        <div class="builder-preview">
          <FormPreview draft={draft} logo={props.logo} stylesheet={props.previewStylesheet} />
        </div>
      </div>
    </BuilderContext.Provider>
  );
}
