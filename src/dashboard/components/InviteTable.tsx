import { useState } from 'preact/hooks';
import type { Invite } from '../../client/schemas.js';
import { formatDateTime } from '../format.js';
import { inviteStatusWords, roleWords } from '../roles.js';
import { useAction } from '../use-action.js';
import { ConfirmButton } from './ConfirmButton.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TableScroller } from './TableScroller.js';

/**
 * Invitations and where they stand. A pending or expired one can be emailed again (a new link, 7 more days); a
 * pending one can be revoked. The API's refusals (an address that became a member's) are shown above the table.
 */
export function InviteTable(props: {
  invites: Invite[];
  onResend?: (invite: Invite) => Promise<unknown>;
  onRevoke?: (invite: Invite) => Promise<unknown>;
}) {
  const action = useAction();
  const [done, setDone] = useState('');
  const act = async (write: () => Promise<unknown>, said: string) => {
    setDone('');
    if (await action.run(write)) setDone(said);
  };
  const editable = props.onResend !== undefined || props.onRevoke !== undefined;
  if (props.invites.length === 0) return <p>No invitations match.</p>;
  return (
    <>
      <ProblemNotice error={action.error} />
      <p role="status">{done}</p>
      <TableScroller label="Invitations table">
        <table>
          <caption class="visually-hidden">Invitations</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Expires</th>
              <th scope="col">Invited</th>
              {editable && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {props.invites.map((invite) => (
              <tr key={invite.id}>
                <td class="wrap-anywhere">{invite.email}</td>
                <td>{roleWords[invite.role].name}</td>
                <td>{inviteStatusWords[invite.status]}</td>
                <td>{invite.status === 'pending' || invite.status === 'expired' ? formatDateTime(invite.expires_at) : '—'}</td>
                <td>{formatDateTime(invite.created_at)}</td>
                {editable && (
                  <td>
                    <div class="row-actions">
                      {props.onResend && (invite.status === 'pending' || invite.status === 'expired') && (
                        <button
                          type="button"
                          disabled={action.busy}
                          aria-label={`Resend the invitation to ${invite.email}`}
                          onClick={() => act(() => props.onResend!(invite), `Invitation emailed again to ${invite.email}.`)}
                        >
                          Resend
                        </button>
                      )}
                      {props.onRevoke && invite.status === 'pending' && (
                        <ConfirmButton
                          label={`Revoke the invitation to ${invite.email}`}
                          confirm="Its link stops working at once."
                          onConfirm={() => act(() => props.onRevoke!(invite), `Invitation to ${invite.email} revoked.`)}
                        />
                      )}
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroller>
    </>
  );
}
