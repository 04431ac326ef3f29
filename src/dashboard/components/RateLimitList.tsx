import type { RateLimits } from '../../client/schemas.js';
import { formatNumber } from '../format.js';

/** The rate limits in effect (what `X-RateLimit-Limit` reports): the standard ones or an operator's. */
export function RateLimitList(props: { limits: RateLimits }) {
  return (
    <dl class="settings-details">
      <dt>Per key (per OAuth grant)</dt>
      <dd>{formatNumber(props.limits.per_key_per_second)} requests a second</dd>
      <dt>Per workspace</dt>
      <dd>{formatNumber(props.limits.per_workspace_per_minute)} requests a minute, secret keys and OAuth tokens together</dd>
      <dt>Set by</dt>
      <dd>{props.limits.custom ? 'An operator, for this workspace' : 'The standard limits'}</dd>
    </dl>
  );
}
