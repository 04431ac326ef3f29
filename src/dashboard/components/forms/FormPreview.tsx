import { useEffect, useRef, useState } from 'preact/hooks';
import { h } from '../../../hosted/page/fields.js';
import { applyAppearance, renderStep } from '../../../hosted/page/step-view.js';
import type { FormDraft } from '../../forms/draft.js';

/**
 * The selected step of the draft as respondents will see it, drawn by the hosted page's own code (renderStep, with
 * its stylesheet and the form's appearance) into a frame of its own, so that the page's styles, ids and headings
 * stay apart from the dashboard's. Nothing in it is sent: the frame's form only shows.
 */
export function FormPreview(props: { draft: Pick<FormDraft, 'name' | 'steps' | 'appearance'>; stylesheet: string }) {
  const { draft } = props;
  const [chosen, setChosen] = useState(0);
  const frame = useRef<HTMLIFrameElement>(null);
  const index = Math.min(chosen, Math.max(draft.steps.length - 1, 0));
  const step = draft.steps[index];

  useEffect(() => {
    const document = frame.current?.contentDocument;
    if (!document) return;
    if (!document.getElementById('hosted-form')) {
      document.documentElement.lang = 'en';
      document.title = 'Preview';
      document.head.append(h('link', { rel: 'stylesheet', href: props.stylesheet }));
      document.body.append(h('main', { id: 'hosted-form' }));
      // The preview's Next and Send go nowhere.
      document.addEventListener('submit', (event) => event.preventDefault());
    }
    const main = document.getElementById('hosted-form')!;
    if (!step) return main.replaceChildren(h('p', {}, 'This form has no steps yet.'));
    const place = { position: index + 1, total: draft.steps.length, isLast: index === draft.steps.length - 1, canGoBack: index > 0 };
    main.replaceChildren(...renderStep({ name: draft.name || 'Untitled form' }, step, {}, place).nodes);
    applyAppearance(draft.appearance, document.documentElement);
  });

  return (
    <section class="form-preview" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <label for="preview-step">Step to preview</label>
      <select id="preview-step" value={String(index)} onChange={(event) => setChosen(Number(event.currentTarget.value))}>
        {draft.steps.map((item, position) => (
          <option key={position} value={String(position)}>
            Step {position + 1}: {item.title}
          </option>
        ))}
      </select>
      <iframe ref={frame} title={`Preview of step ${index + 1}, as respondents see it`} class="preview-frame" />
    </section>
  );
}
