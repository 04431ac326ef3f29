import type { FormDraft } from '../../forms/draft.js';
import { DraftCheckbox } from './DraftCheckbox.js';
import { DraftNumber } from './DraftNumber.js';
import { DraftText } from './DraftText.js';

type SpamProtection = FormDraft['spam_protection'];

/** How the public submissions of the form are guarded against bots: a honeypot, a minimum time, proof of work. */
export function SpamProtectionSection(props: { value: SpamProtection; onValue: (value: SpamProtection) => void }) {
  const { value } = props;
  return (
    <section aria-labelledby="spam-heading">
      <h2 id="spam-heading">Spam protection</h2>
      <DraftText
        pointer="/spam_protection/honeypot_field"
        label="Honeypot answer name"
        hint="An answer no person fills in (the page hides it); a submission that has it is counted as spam. Not a field's key."
        value={value.honeypot_field ?? ''}
        onValue={(name) => props.onValue({ ...value, honeypot_field: name === '' ? null : name })}
      />
      <DraftNumber
        pointer="/spam_protection/min_completion_seconds"
        label="Fewest seconds to complete"
        hint="A submission sent sooner after the page loaded the form is refused."
        value={value.min_completion_seconds}
        onValue={(seconds) => props.onValue({ ...value, min_completion_seconds: seconds ?? 0 })}
      />
      <DraftCheckbox
        pointer="/spam_protection/proof_of_work"
        label="Require proof of work"
        hint="The page solves a small puzzle before it sends; scripts sending in bulk pay for each submission."
        checked={value.proof_of_work}
        onValue={(proof_of_work) => props.onValue({ ...value, proof_of_work })}
      />
    </section>
  );
}
