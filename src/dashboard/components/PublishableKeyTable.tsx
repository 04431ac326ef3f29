import type { Schema } from '../../client/schemas.js';
import { formatDateTime } from '../format.js';
import { useAction } from '../use-action.js';
import { ConfirmButton } from './ConfirmButton.js';
import { CopyButton } from './CopyButton.js';
import { KeyAttachment } from './KeyAttachment.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TableScroller } from './TableScroller.js';

type PublishableKey = Schema<'PublishableKey'>;

/**
 * Publishable keys, what web pages send to show a form and submit to it: the value (not a secret, so always shown,
 * with a copy button), the origins allowed to use it, its state. An active key can be edited or revoked.
 */
export function PublishableKeyTable(props: {
  keys: PublishableKey[];
  onEdit?: (key: PublishableKey) => void;
  onRevoke?: (key: PublishableKey) => Promise<unknown>;
}) {
  const revoke = useAction();
  const editable = props.onEdit !== undefined || props.onRevoke !== undefined;
  if (props.keys.length === 0) return <p>No publishable keys yet.</p>;
  return (
    <>
      <ProblemNotice error={revoke.error} />
      <TableScroller label="Publishable keys table">
        <table>
          <caption class="visually-hidden">Publishable keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
              <th scope="col">Allowed origins</th>
              <th scope="col">Environment</th>
              <th scope="col">Reaches</th>
              <th scope="col">Status</th>
              <th scope="col">Last used</th>
              {editable && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {props.keys.map((key) => (
              <tr key={key.id}>
                <td class="wrap-anywhere">{key.name}</td>
                <td>
                  <code class="wrap-anywhere">{key.value}</code>
                  <div>
                    <CopyButton text={key.value} label={`Copy ${key.name}'s value`} />
                  </div>
                </td>
                <td>
                  <ul class="plain-list">
                    {key.allowed_origins.map((origin) => (
                      <li key={origin} class="wrap-anywhere">
                        {origin}
                      </li>
                    ))}
                  </ul>
                </td>
                <td>{key.environment}</td>
                <td>
                  <KeyAttachment attachment={key.attachment} />
                </td>
                <td>
                  {key.status === 'active' ? (
                    <span class="status-badge success">Active</span>
                  ) : (
                    <>
                      <span class="status-badge">Revoked</span> <span class="muted">{formatDateTime(key.revoked_at)}</span>
                    </>
                  )}
                </td>
                <td>{key.last_used_at ? formatDateTime(key.last_used_at) : 'Never'}</td>
                {editable && (
                  <td>
                    {key.status === 'active' && (
                      <div class="row-actions">
                        {props.onEdit && (
                          <button type="button" aria-label={`Edit ${key.name}`} onClick={() => props.onEdit!(key)}>
                            Edit
                          </button>
                        )}
                        {props.onRevoke && (
                          <ConfirmButton
                            label={`Revoke ${key.name}`}
                            confirm="Pages that use it are refused from now on; this cannot be undone."
                            onConfirm={() => revoke.run(() => props.onRevoke!(key)).then(() => undefined)}
                          />
                        )}
                      </div>
                    )}
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
