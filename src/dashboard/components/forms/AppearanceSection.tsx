import type { FormDraft } from '../../forms/draft.js';
import { DraftSelect } from './DraftSelect.js';
import { DraftText } from './DraftText.js';

type Appearance = FormDraft['appearance'];

const fontOptions: Array<{ value: Appearance['font']; label: string }> = [
  { value: 'system', label: 'System (sans-serif)' },
  { value: 'serif', label: 'Serif' },
];

/** How the hosted page looks: its accent colour and typeface (the preview shows both). */
export function AppearanceSection(props: { appearance: Appearance; onAppearance: (appearance: Appearance) => void }) {
  const { appearance } = props;
  return (
    <section aria-labelledby="appearance-heading">
      <h2 id="appearance-heading">Appearance</h2>
      <div class="settings-inputs">
        <DraftText
          pointer="/appearance/accent_color"
          label="Accent colour"
          type="color"
          hint="Buttons carry white text on it: pick a colour dark enough to read it (contrast 4.5:1)."
          value={appearance.accent_color}
          onValue={(accent_color) => props.onAppearance({ ...appearance, accent_color })}
        />
        <DraftSelect
          pointer="/appearance/font"
          label="Typeface"
          value={appearance.font}
          options={fontOptions}
          onValue={(font) => props.onAppearance({ ...appearance, font: font as Appearance['font'] })}
        />
      </div>
    </section>
  );
}
