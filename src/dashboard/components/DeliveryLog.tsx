import type { IntegrationLog } from '../../client/schemas.js';
import { formatDateTime } from '../format.js';
import { deliveryStatusWords } from '../integration-vocabulary.js';
import { useAction } from '../use-action.js';
import { ProblemNotice } from './ProblemNotice.js';
import { TableScroller } from './TableScroller.js';

/**
 * An integration's delivery attempts, newest first, retries included: the event, which attempt, its outcome (the
 * endpoint's status, how long it took, the error) and when the next attempt is due. An editor can replay an event.
 */
export function DeliveryLog(props: { logs: IntegrationLog[]; onReplay?: (eventId: string) => Promise<unknown> }) {
  const replay = useAction();
  if (props.logs.length === 0) return <p>No deliveries match.</p>;
  return (
    <>
      <ProblemNotice error={replay.error} />
      <TableScroller label="Delivery attempts table">
        <table>
          <caption class="visually-hidden">Delivery attempts</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Event</th>
              <th scope="col" class="number">
                Attempt
              </th>
              <th scope="col">Status</th>
              <th scope="col" class="number">
                Response
              </th>
              <th scope="col" class="number">
                Duration
              </th>
              <th scope="col">Error</th>
              <th scope="col">Next attempt</th>
              {props.onReplay && <th scope="col">Replay</th>}
            </tr>
          </thead>
          <tbody>
            {props.logs.map((log) => (
              <tr key={log.id}>
                <td>{formatDateTime(log.created_at)}</td>
                <td>
                  <code>{log.event_type}</code>
                  <div class="muted">
                    <code>{log.event_id}</code>
                  </div>
                  {log.mock && <div class="muted">Recorded against the mock endpoint</div>}
                </td>
                <td class="number">{log.attempt}</td>
                <td>
                  <span class={`status-badge ${log.status === 'succeeded' ? 'success' : log.status === 'failed' ? 'danger' : ''}`}>
                    {deliveryStatusWords[log.status]}
                  </span>
                </td>
                <td class="number">{log.response_status ?? '—'}</td>
                <td class="number">{log.duration_ms === null ? '—' : `${log.duration_ms} ms`}</td>
                <td class="wrap-anywhere">{log.error ?? '—'}</td>
                <td>{formatDateTime(log.next_attempt_at)}</td>
                {props.onReplay && (
                  <td>
                    <button
                      type="button"
                      disabled={replay.busy}
                      aria-label={`Replay ${log.event_type} ${log.event_id}`}
                      onClick={() => replay.run(() => props.onReplay!(log.event_id))}
                    >
                      Replay
                    </button>
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
