import { useState } from 'preact/hooks';
import { paginate } from '../../../client/paginate.js';
import type { FormTransfer } from '../../../client/schemas.js';
import { unwrap } from '../../api.js';
import { formatDateTime } from '../../format.js';
import { api } from '../../state.js';
import { useResource } from '../../use-resource.js';
import { ConfirmButton } from '../ConfirmButton.js';
import { ProblemNotice } from '../ProblemNotice.js';

async function pendingIncoming(): Promise<FormTransfer[]> {
  const pending: FormTransfer[] = [];
  for await (const transfer of paginate(api(), '/transfers', { params: { query: { direction: 'incoming', limit: 100 } } }))
    if (transfer.status === 'pending') pending.push(transfer);
  return pending;
}

/** Forms other workspaces offer to this one, for an admin to accept (the form moves here) or decline. */
export function IncomingTransfers(props: { onAccepted: () => void }) {
  const transfers = useResource(pendingIncoming, 'incoming');
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  const answer = async (transfer: FormTransfer, verb: 'accept' | 'decline') => {
    setError(undefined);
    try {
      const path = verb === 'accept' ? '/transfers/{id}/accept' : '/transfers/{id}/decline';
      unwrap(await api().POST(path, { params: { path: { id: transfer.id } } }));
      setStatus(verb === 'accept' ? `${transfer.form_name} moved to this workspace.` : `${transfer.form_name} was declined.`);
      transfers.reload();
      if (verb === 'accept') props.onAccepted();
    } catch (caught) {
      setError(caught);
    }
  };
  const pending = transfers.data ?? [];
  return (
    <>
      <p role="status">{status}</p>
      <ProblemNotice error={error ?? transfers.error} />
      {pending.length > 0 && (
        <section aria-labelledby="incoming-heading" class="card">
          <h2 id="incoming-heading">Forms offered to this workspace</h2>
          <ul class="incoming">
            {pending.map((transfer) => (
              <li key={transfer.id}>
                <strong>{transfer.form_name}</strong> from <code>{transfer.from_workspace_id}</code>, until{' '}
                {formatDateTime(transfer.expires_at)}
                <div class="actions">
                  <button type="button" onClick={() => answer(transfer, 'accept')}>
                    Accept<span class="visually-hidden"> {transfer.form_name}</span>
                  </button>
                  <ConfirmButton
                    label={`Decline ${transfer.form_name}`}
                    confirm="Decline this form?"
                    onConfirm={() => answer(transfer, 'decline')}
                  />
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
