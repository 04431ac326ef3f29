import type { FormTransfer } from '../../../client/schemas.js';
import { formatDateTime } from '../../format.js';
import { ConfirmButton } from '../ConfirmButton.js';
import { TableScroller } from '../TableScroller.js';

/** Transfers of a form: where it was offered, their status, and Cancel for a pending one. */
export function TransferList(props: { transfers: readonly FormTransfer[]; onCancel: (transfer: FormTransfer) => Promise<void> }) {
  if (props.transfers.length === 0) return <p class="muted">This form has not been offered to another workspace.</p>;
  return (
    <TableScroller label="Transfers of this form">
      <table>
        <caption class="visually-hidden">Transfers of this form, newest first</caption>
        <thead>
          <tr>
            <th scope="col">To workspace</th>
            <th scope="col">Status</th>
            <th scope="col">Offered</th>
            <th scope="col">Expires</th>
            <th scope="col">Cancel</th>
          </tr>
        </thead>
        <tbody>
          {props.transfers.map((transfer) => (
            <tr key={transfer.id}>
              <td>
                <code>{transfer.to_workspace_id}</code>
              </td>
              <td>{transfer.status}</td>
              <td>{formatDateTime(transfer.created_at)}</td>
              <td>{transfer.status === 'pending' ? formatDateTime(transfer.expires_at) : '—'}</td>
              <td>
                {transfer.status === 'pending' && (
                  <ConfirmButton
                    label="Cancel transfer"
                    confirm="Withdraw the offer? The form stays here."
                    onConfirm={() => props.onCancel(transfer)}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroller>
  );
}
