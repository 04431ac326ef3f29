import type { Member } from '../../client/schemas.js';
import { formatDateTime } from '../format.js';
import { roleWords } from '../roles.js';
import { useAction } from '../use-action.js';
import { ConfirmButton } from './ConfirmButton.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TableScroller } from './TableScroller.js';

/**
 * The people with access to the workspace and their roles. An admin can remove anyone; the API decides what it
 * refuses (the only admin, 409 `last_admin`) and its answer is shown above the table.
 */
export function MemberTable(props: { members: Member[]; selfId: string | undefined; onRemove?: (member: Member) => Promise<unknown> }) {
  const remove = useAction();
  return (
    <>
      <ProblemNotice error={remove.error} />
      <TableScroller label="Members table">
        <table>
          <caption class="visually-hidden">Members</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              {props.onRemove && <th scope="col">Remove</th>}
            </tr>
          </thead>
          <tbody>
            {props.members.map((member) => (
              <tr key={member.id}>
                <td>
                  {member.name ?? <span class="muted">No name set</span>}
                  {member.id === props.selfId && <span class="muted"> (you)</span>}
                </td>
                <td class="wrap-anywhere">{member.email}</td>
                <td>{roleWords[member.role].name}</td>
                <td>{formatDateTime(member.created_at)}</td>
                {props.onRemove && (
                  <td>
                    <ConfirmButton
                      label={`Remove ${member.email}`}
                      confirm={member.id === props.selfId ? 'Remove yourself? You lose access at once.' : 'They lose access at once.'}
                      onConfirm={() => remove.run(() => props.onRemove!(member)).then(() => undefined)}
                    />
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
