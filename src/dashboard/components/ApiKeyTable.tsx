import type { ApiKey } from '../../client/schemas.js';
import { formatDateTime } from '../format.js';
import { useAction } from '../use-action.js';
import { ConfirmButton } from './ConfirmButton.js';
import { KeyAttachment } from './KeyAttachment.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TableScroller } from './TableScroller.js';

/**
 * The workspace's secret API keys of both environments, active and revoked: each by name and `secret_hint` (the secret
 * itself is never shown again), what it may do and reach, when it was last used. An active key can be revoked.
 */
export function ApiKeyTable(props: { keys: ApiKey[]; onRevoke?: (key: ApiKey) => Promise<unknown> }) {
  const revoke = useAction();
  if (props.keys.length === 0) return <p>No API keys match.</p>;
  return (
    <>
      <ProblemNotice error={revoke.error} />
      <TableScroller label="API keys table">
        <table>
          <caption class="visually-hidden">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Environment</th>
              <th scope="col">Scope</th>
              <th scope="col">Reaches</th>
              <th scope="col">Status</th>
              <th scope="col">Last used</th>
              <th scope="col">Created</th>
              {props.onRevoke && <th scope="col">Revoke</th>}
            </tr>
          </thead>
          <tbody>
            {props.keys.map((key) => (
              <tr key={key.id}>
                <td class="wrap-anywhere">{key.name}</td>
                <td>
                  <code>{key.secret_hint}</code>
                </td>
                <td>{key.environment}</td>
                <td>{key.scope}</td>
                <td>
                  <KeyAttachment attachment={key.attachment} />
                </td>
                <td>
                  {key.status === 'active' ? (
                    <span class="status-badge success">Active</span>
                  ) : (
                    <>
                      <span class="status-badge">Revoked</span> <span class="muted">{formatDateTime(key.revoked_at)}</span>
                      {key.revocation_reason && <div class="muted">{key.revocation_reason}</div>}
                    </>
                  )}
                  {key.status === 'active' && key.expires_at && <div class="muted">Expires {formatDateTime(key.expires_at)}</div>}
                </td>
                <td>{key.last_used_at ? formatDateTime(key.last_used_at) : 'Never'}</td>
                <td>{formatDateTime(key.created_at)}</td>
                {props.onRevoke && (
                  <td>
                    {key.status === 'active' && (
                      <ConfirmButton
                        label={`Revoke ${key.name}`}
                        confirm="Requests with it are refused from now on; this cannot be undone."
                        onConfirm={() => revoke.run(() => props.onRevoke!(key)).then(() => undefined)}
                      />
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
