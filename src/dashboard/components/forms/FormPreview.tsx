import { useEffect, useRef, useState } from 'preact/hooks';
import type { Form } from '../../../client/schemas.js';
import { languageOf } from '../../../hosted/languages.js';
import { h } from '../../../hosted/page/fields.js';
import { catalogues } from '../../../hosted/page/i18n/catalogues.js';
import { localizer } from '../../../hosted/page/i18n/localize.js';
import { redirectTarget, renderEnding, renderWelcome } from '../../../hosted/page/screens.js';
import { applyAppearance, applyLanguage, renderStep } from '../../../hosted/page/step-view.js';
import type { FormDraft } from '../../forms/draft.js';

type Previewed = Pick<FormDraft, 'name' | 'steps' | 'appearance' | 'welcome' | 'ending' | 'language'>;

/** What the preview can show: the welcome screen, a step by its index, or the ending. */
type Screen = 'welcome' | 'ending' | number;

const screenValue = (screen: Screen): string => String(screen);
const screenOf = (value: string): Screen => (value === 'welcome' || value === 'ending' ? value : Number(value));

/**
 * The chosen screen of the draft as respondents will see it (the welcome, a step, the ending), drawn by the hosted
 * page's own code (renderWelcome, renderStep, renderEnding, with its stylesheet, the form's appearance, logo and
 * language) into a frame of its own, so that the page's styles, ids and headings stay apart from the dashboard's.
 * Nothing in it is sent and nothing in it navigates: its buttons and links only show.
 */
export function FormPreview(props: { draft: Previewed; logo: Form['logo'] | undefined; stylesheet: string }) {
  const { draft } = props;
  const [chosen, setChosen] = useState<Screen>(0);
  const frame = useRef<HTMLIFrameElement>(null);
  const lastStep = Math.max(draft.steps.length - 1, 0);
  // A choice that no longer exists (a step removed, the welcome turned off) falls back to the nearest step.
  const screen: Screen =
    chosen === 'welcome' ? (draft.welcome ? 'welcome' : 0) : chosen === 'ending' ? 'ending' : Math.min(chosen, lastStep);
  const title = screen === 'welcome' ? 'the welcome screen' : screen === 'ending' ? 'the ending screen' : `step ${screen + 1}`;

  useEffect(() => {
    const document = frame.current?.contentDocument;
    if (!document) return;
    if (!document.getElementById('hosted-form')) {
      document.title = 'Preview';
      document.head.append(h('link', { rel: 'stylesheet', href: props.stylesheet }));
      document.body.append(h('main', { id: 'hosted-form' }));
      // The preview's Next and Submit go nowhere, and its links (the ending's onward link) lead nowhere either.
      document.addEventListener('submit', (event) => event.preventDefault());
      document.addEventListener('click', (event) => {
        if ((event.target as Element | null)?.closest?.('a')) event.preventDefault();
      });
    }
    const text = localizer(draft.language, catalogues[languageOf(draft.language)]);
    const brand = { name: draft.name || 'Untitled form', logo: props.logo };
    const main = document.getElementById('hosted-form')!;
    applyLanguage(draft.language, text, document.documentElement);
    applyAppearance(draft.appearance, document.documentElement);
    if (screen === 'welcome' && draft.welcome) return main.replaceChildren(...renderWelcome(brand, draft.welcome, text).nodes);
    if (screen === 'ending') {
      const redirect = draft.ending?.redirect_url ? redirectTarget(draft.ending.redirect_url, 'sub_preview') : undefined;
      return main.replaceChildren(...renderEnding(brand, draft.ending, text, redirect).nodes);
    }
    const step = typeof screen === 'number' ? draft.steps[screen] : undefined;
    if (!step || typeof screen !== 'number') return main.replaceChildren(h('p', {}, 'This form has no steps yet.'));
    const place = { position: screen + 1, total: draft.steps.length, isLast: screen === lastStep, canGoBack: screen > 0 };
    main.replaceChildren(...renderStep(brand, step, {}, place, '', text).nodes);
  });

  return (
    <section class="form-preview" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <label for="preview-screen">Screen to preview</label>
      <select id="preview-screen" value={screenValue(screen)} onChange={(event) => setChosen(screenOf(event.currentTarget.value))}>
        {draft.welcome && <option value="welcome">Welcome screen</option>}
        {draft.steps.map((item, position) => (
          <option key={position} value={String(position)}>
            Step {position + 1}: {item.title}
          </option>
        ))}
        <option value="ending">{draft.ending ? 'Ending screen' : "Ending (the page's own thank-you)"}</option>
      </select>
      <iframe ref={frame} title={`Preview of ${title}, as respondents see it`} class="preview-frame" />
    </section>
  );
}
