import type { FormDraft } from '../../forms/draft.js';
import { DraftCheckbox } from './DraftCheckbox.js';

/** Whether the service hosts the form's page for respondents, and its address once it does. */
export function HostingSection(props: { hosting: FormDraft['hosting']; onHosting: (hosting: FormDraft['hosting']) => void }) {
  const { hosting } = props;
  return (
    <section aria-labelledby="hosting-heading">
      <h2 id="hosting-heading">Hosting</h2>
      <DraftCheckbox
        pointer="/hosting/enabled"
        label="Host the form's page"
        hint="The service serves the form at its own address, and sites can embed it."
        checked={hosting.enabled}
        onValue={(enabled) => props.onHosting({ ...hosting, enabled })}
      />
      {hosting.enabled && hosting.url && (
        <p>
          Hosted at <a href={hosting.url}>{hosting.url}</a>
        </p>
      )}
      {hosting.enabled && !hosting.url && <p class="muted">The page's address is given once the form is published with hosting on.</p>}
    </section>
  );
}
