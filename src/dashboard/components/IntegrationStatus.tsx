import type { Integration } from '../../client/schemas.js';

/** Whether an integration delivers: on, paused by a person, or turned off by the service after failing deliveries. */
export function IntegrationStatus(props: { integration: Integration }) {
  const { enabled, disabled_reason: reason } = props.integration;
  if (enabled) return <span class="status-badge success">Delivering</span>;
  if (reason === 'delivery_failures') return <span class="status-badge danger">Disabled by the service: deliveries kept failing</span>;
  return <span class="status-badge">Paused</span>;
}
