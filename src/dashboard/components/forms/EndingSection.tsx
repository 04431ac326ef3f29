import { useRef } from 'preact/hooks';
import { focusSoon, idAt } from '../../forms/builder-context.js';
import type { Ending } from '../../forms/draft.js';
import { DraftCheckbox } from './DraftCheckbox.js';
import { DraftText } from './DraftText.js';

/**
 * The screen the hosted page shows once a respondent has submitted, in place of its own thank-you, and the address it
 * may send them to. Turning it off and on again while editing brings back what was typed.
 */
export function EndingSection(props: { ending: Ending | null; onEnding: (ending: Ending | null) => void }) {
  const { ending } = props;
  const setAside = useRef<Ending | null>(null);
  const turn = (on: boolean) => {
    if (on) {
      props.onEnding(setAside.current ?? { title: '', text: null, redirect_url: null });
      focusSoon(idAt('/ending/title'));
    } else {
      setAside.current = ending;
      props.onEnding(null);
    }
  };
  return (
    <section aria-labelledby="ending-heading">
      <h2 id="ending-heading">Ending screen</h2>
      <DraftCheckbox
        pointer="/ending"
        label="Show your own ending screen"
        hint="After the respondent submits, in place of the page's own thank-you; it can send them on to your site."
        checked={ending !== null}
        onValue={turn}
      />
      {ending && (
        <div class="stacked-inputs">
          <DraftText
            pointer="/ending/title"
            label="Ending title"
            value={ending.title}
            onValue={(title) => props.onEnding({ ...ending, title })}
          />
          <DraftText
            pointer="/ending/text"
            label="Ending text"
            hint="Optional. Plain text; line breaks are kept."
            multiline
            value={ending.text ?? ''}
            onValue={(text) => props.onEnding({ ...ending, text: text === '' ? null : text })}
          />
          <DraftText
            pointer="/ending/redirect_url"
            label="Redirect to"
            type="url"
            hint="Optional. An https:// address to send the respondent to right after they submit. In its query, {submission_id} becomes the submission's id: https://example.com/thanks?ref={submission_id}"
            value={ending.redirect_url ?? ''}
            onValue={(url) => props.onEnding({ ...ending, redirect_url: url === '' ? null : url })}
          />
        </div>
      )}
    </section>
  );
}
