import { useRef } from 'preact/hooks';
import { focusSoon, idAt } from '../../forms/builder-context.js';
import type { Welcome } from '../../forms/draft.js';
import { DraftCheckbox } from './DraftCheckbox.js';
import { DraftText } from './DraftText.js';

/**
 * The screen the hosted page shows before the first step: its title, text and start button's label. Turning it off and
 * on again while editing brings back what was typed.
 */
export function WelcomeSection(props: { welcome: Welcome | null; onWelcome: (welcome: Welcome | null) => void }) {
  const { welcome } = props;
  const setAside = useRef<Welcome | null>(null);
  const turn = (on: boolean) => {
    if (on) {
      props.onWelcome(setAside.current ?? { title: '', text: null, button_label: null });
      focusSoon(idAt('/welcome/title'));
    } else {
      setAside.current = welcome;
      props.onWelcome(null);
    }
  };
  return (
    <section aria-labelledby="welcome-heading">
      <h2 id="welcome-heading">Welcome screen</h2>
      <DraftCheckbox
        pointer="/welcome"
        label="Show a welcome screen"
        hint="Before the first step: a title, a few words and a button that starts the form."
        checked={welcome !== null}
        onValue={turn}
      />
      {welcome && (
        <div class="stacked-inputs">
          <DraftText
            pointer="/welcome/title"
            label="Welcome title"
            value={welcome.title}
            onValue={(title) => props.onWelcome({ ...welcome, title })}
          />
          <DraftText
            pointer="/welcome/button_label"
            label="Start button label"
            hint="Left empty: the page's own word in the form's language (Start, Starten, …)."
            value={welcome.button_label ?? ''}
            onValue={(label) => props.onWelcome({ ...welcome, button_label: label === '' ? null : label })}
          />
          <DraftText
            pointer="/welcome/text"
            label="Welcome text"
            hint="Optional. Plain text; line breaks are kept."
            multiline
            value={welcome.text ?? ''}
            onValue={(text) => props.onWelcome({ ...welcome, text: text === '' ? null : text })}
          />
        </div>
      )}
    </section>
  );
}
