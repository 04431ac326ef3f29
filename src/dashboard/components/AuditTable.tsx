import type { AuditEvent } from '../../client/schemas.js';
import { formatDateTime } from '../format.js';
import { TableScroller } from './TableScroller.js';

const actorWords: Record<AuditEvent['actor']['type'], string> = { api_key: 'API key', oauth_token: 'Signed-in app', system: 'The service' };

/**
 * Audit log entries, newest first: when, what happened, who acted (a key, a signed-in application, or the service)
 * on what, the reason given and the environment. Types the dashboard does not know are shown as they come.
 */
export function AuditTable(props: { events: AuditEvent[] }) {
  if (props.events.length === 0) return <p>No audit events match.</p>;
  return (
    <TableScroller label="Audit events table">
      <table>
        <caption class="visually-hidden">Audit events</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Actor</th>
            <th scope="col">Target</th>
            <th scope="col">Reason</th>
            <th scope="col">Environment</th>
          </tr>
        </thead>
        <tbody>
          {props.events.map((event) => (
            <tr key={event.id}>
              <td>{formatDateTime(event.created_at)}</td>
              <td>
                <code>{event.type}</code>
              </td>
              <td>
                {actorWords[event.actor.type]}
                {event.actor.name && <div class="wrap-anywhere">{event.actor.name}</div>}
                {event.actor.id && (
                  <div class="muted">
                    <code>{event.actor.id}</code>
                  </div>
                )}
              </td>
              <td>
                {event.target.type}
                {event.target.name && <div class="wrap-anywhere">{event.target.name}</div>}
                <div class="muted">
                  <code>{event.target.id}</code>
                </div>
              </td>
              <td class="wrap-anywhere">{event.reason ?? '—'}</td>
              <td>{event.environment}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroller>
  );
}
