import { useState } from 'preact/hooks';
import { paginate } from '../../../client/paginate.js';
import type { FormTransfer } from '../../../client/schemas.js';
import { FormFunnelError, unwrap } from '../../api.js';
import { api } from '../../state.js';
import { useResource } from '../../use-resource.js';
import { Loading } from '../Loading.js';
import { ProblemNotice } from '../ProblemNotice.js';
import { TextField } from '../TextField.js';
import { TransferList } from './TransferList.js';

async function transfersOf(formId: string): Promise<FormTransfer[]> {
  const found: FormTransfer[] = [];
  for await (const transfer of paginate(api(), '/transfers', { params: { query: { direction: 'outgoing', limit: 100 } } }))
    if (transfer.form_id === formId) found.push(transfer);
  return found;
}

/**
 * Offering the form to another workspace (an admin's act, live only): its admins accept or decline; until then the
 * form stays here. Loads this form's transfers for TransferList and sends the offer and cancellations.
 */
export function TransferPanel(props: { formId: string }) {
  const transfers = useResource(() => transfersOf(props.formId), props.formId);
  const [workspaceId, setWorkspaceId] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');

  async function offer(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setStatus('');
    try {
      const transfer = unwrap(
        await api().POST('/forms/{id}/transfer', { params: { path: { id: props.formId } }, body: { workspace_id: workspaceId.trim() } }),
      );
      setWorkspaceId('');
      setStatus(`Offered to ${transfer.to_workspace_id}: it moves when an admin there accepts.`);
      transfers.reload();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  async function cancel(transfer: FormTransfer) {
    setError(undefined);
    try {
      unwrap(await api().POST('/transfers/{id}/cancel', { params: { path: { id: transfer.id } } }));
      setStatus('The transfer was canceled; the form stays here.');
      transfers.reload();
    } catch (caught) {
      setError(caught);
    }
  }

  return (
    <section aria-labelledby="transfer-heading">
      <h2 id="transfer-heading">Transfer</h2>
      <p class="muted">
        Offer the form, with its versions and submissions, to another workspace. It moves when an admin there accepts; keys attached to it
        are then revoked.
      </p>
      <form onSubmit={offer} class="inline-form">
        <TextField
          id="transfer-workspace"
          label="Destination workspace id"
          hint="Starts with ws_; ask an admin of that workspace for it."
          value={workspaceId}
          onInput={setWorkspaceId}
          error={error instanceof FormFunnelError && error.details?.errors ? error : undefined}
          pointer="/workspace_id"
          required
        />
        <button type="submit" disabled={busy}>
          Offer transfer
        </button>
      </form>
      <p role="status">{status}</p>
      <ProblemNotice error={error} />
      <ProblemNotice error={transfers.error} onRetry={transfers.reload} />
      {!transfers.data && transfers.loading && <Loading what="transfers" />}
      {transfers.data && <TransferList transfers={transfers.data} onCancel={cancel} />}
    </section>
  );
}
