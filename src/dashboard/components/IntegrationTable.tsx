import type { Integration } from '../../client/schemas.js';
import { formatDateTime } from '../format.js';
import { IntegrationStatus } from './IntegrationStatus.js';
import { Link } from './Link.js';
import { TableScroller } from './TableScroller.js';

/** The workspace's integrations: where each delivers, which events, whether it is on; each opens its own page. */
export function IntegrationTable(props: { integrations: Integration[] }) {
  if (props.integrations.length === 0) return <p>No integrations yet.</p>;
  return (
    <TableScroller label="Integrations table">
      <table>
        <caption class="visually-hidden">Integrations</caption>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Events</th>
            <th scope="col">Status</th>
            <th scope="col">Secret</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {props.integrations.map((integration) => (
            <tr key={integration.id}>
              <td class="wrap-anywhere">
                <Link to={`integrations/${integration.id}`}>{integration.url}</Link>
                {integration.description && <div class="muted">{integration.description}</div>}
                {integration.test && <div class="muted">Test mode</div>}
              </td>
              <td>
                <ul class="plain-list">
                  {integration.events.map((type) => (
                    <li key={type}>
                      <code>{type}</code>
                    </li>
                  ))}
                </ul>
              </td>
              <td>
                <IntegrationStatus integration={integration} />
              </td>
              <td>
                <code>{integration.secret_hint}</code>
              </td>
              <td>{formatDateTime(integration.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroller>
  );
}
