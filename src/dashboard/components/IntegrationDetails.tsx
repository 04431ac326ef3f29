import type { FormSummary, Integration } from '../../client/schemas.js';
import { formatDateTime } from '../format.js';
import { IntegrationStatus } from './IntegrationStatus.js';

/** One integration as the API returns it: where, what, its state and its secret's hint (never the secret). */
export function IntegrationDetails(props: { integration: Integration; forms: FormSummary[] }) {
  const it = props.integration;
  const form = props.forms.find((candidate) => candidate.id === it.form_id);
  return (
    <dl class="settings-details">
      <dt>Endpoint</dt>
      <dd class="wrap-anywhere">{it.url}</dd>
      <dt>Events</dt>
      <dd>
        {it.events.map((type, index) => (
          <span key={type}>
            {index > 0 && ', '}
            <code>{type}</code>
          </span>
        ))}
      </dd>
      <dt>Status</dt>
      <dd>
        <IntegrationStatus integration={it} />
        {it.disabled_at && <span class="muted"> since {formatDateTime(it.disabled_at)}</span>}
      </dd>
      <dt>Description</dt>
      <dd>{it.description ?? <span class="muted">None</span>}</dd>
      <dt>Form</dt>
      <dd>{form ? form.name : it.form_id ? <code>{it.form_id}</code> : 'Every form'}</dd>
      <dt>Signing secret</dt>
      <dd>
        <code>{it.secret_hint}</code>
        {it.previous_secret_expires_at && (
          <span class="muted"> (the previous secret also signs until {formatDateTime(it.previous_secret_expires_at)})</span>
        )}
      </dd>
      <dt>Environment</dt>
      <dd>{it.test ? 'Test mode only' : 'Live'}</dd>
      <dt>Created</dt>
      <dd>{formatDateTime(it.created_at)}</dd>
      <dt>Updated</dt>
      <dd>{formatDateTime(it.updated_at)}</dd>
    </dl>
  );
}
