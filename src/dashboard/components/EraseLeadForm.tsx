import { useState } from 'preact/hooks';
import type { SubmissionErasure } from '../../client/schemas.js';
import { formatNumber } from '../format.js';
import { ConfirmButton } from './ConfirmButton.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TextField } from './TextField.js';

/**
 * Forgetting a person (`POST /v1/submissions/erase`): every lead whose email answer is this address, in every form
 * of this environment, is deleted for good. Asks once more in place; the address stays typed if the API refuses it.
 */
export function EraseLeadForm(props: { onErase: (email: string) => Promise<SubmissionErasure> }) {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [erasure, setErasure] = useState<SubmissionErasure | undefined>(undefined);
  return (
    <section class="erase-lead" aria-labelledby="erase-heading">
      <h2 id="erase-heading">Erase a person</h2>
      <p class="muted">
        Deletes every lead whose email answer is this address, in every form, with its score and events. It cannot be undone.
      </p>
      <TextField id="erase-email" label="Email address" type="email" value={email} onInput={setEmail} error={error} pointer="/email" />
      <div class="actions">
        <ConfirmButton
          label="Erase this person's leads"
          confirm={`Erase every lead of ${email.trim() || 'this address'}?`}
          disabled={email.trim() === ''}
          onConfirm={async () => {
            setError(undefined);
            setErasure(undefined);
            try {
              setErasure(await props.onErase(email));
              setEmail('');
            } catch (caught) {
              setError(caught);
            }
          }}
        />
      </div>
      <ProblemNotice error={error} />
      <p role="status">
        {erasure &&
          `Erased: ${formatNumber(erasure.deleted_submissions)} lead${erasure.deleted_submissions === 1 ? '' : 's'} deleted, ` +
            `${formatNumber(erasure.canceled_deliveries)} pending webhook ` +
            `deliver${erasure.canceled_deliveries === 1 ? 'y' : 'ies'} canceled.`}
      </p>
    </section>
  );
}
