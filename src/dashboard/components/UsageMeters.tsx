import { useState } from 'preact/hooks';
import type { Usage, UsagePeriod } from '../../client/schemas.js';
import { formatNumber } from '../format.js';
import { uniqueId } from './TextField.js';

type Metric = Exclude<keyof UsagePeriod, 'month' | 'starts_at' | 'ends_at'>;
/** What each figure counts (the contract's `UsagePeriod`): a record, so a new figure must be named here. */
const metrics: Record<Metric, { name: string; counts: string }> = {
  submissions: { name: 'Submissions', counts: 'live submissions created, completed or partial' },
  api_requests: { name: 'API requests', counts: 'requests with live secret keys and OAuth tokens; may lag by 5 seconds' },
  webhook_deliveries: { name: 'Webhook deliveries', counts: 'delivery attempts to live integrations, retries included' },
};

const monthName = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
const monthOf = (period: UsagePeriod): string => monthName.format(new Date(period.starts_at));
const DAY = 86_400_000;

/**
 * The workspace's live usage this month beside last month's: each figure as a meter against the larger of the two,
 * with the numbers in words, and how far through the month (UTC) the current period is. The API states no monthly
 * allowance, so last month is the measure.
 */
export function UsageMeters(props: { usage: Usage; now?: Date }) {
  const [id] = useState(() => uniqueId('usage'));
  const { current_period: current, previous_period: previous } = props.usage;
  const now = (props.now ?? new Date()).getTime();
  const start = Date.parse(current.starts_at);
  const days = Math.round((Date.parse(current.ends_at) - start) / DAY);
  const elapsed = Math.min(days, Math.max(0, (now - start) / DAY));
  return (
    <div class="usage">
      <p>
        <label for={`${id}-month`}>
          {monthOf(current)}: day {Math.min(days, Math.floor(elapsed) + 1)} of {days}
        </label>{' '}
        <progress id={`${id}-month`} value={elapsed} max={days}>
          {Math.floor(elapsed)} of {days} days
        </progress>
      </p>
      <ul class="meters">
        {(Object.keys(metrics) as Metric[]).map((metric) => {
          const max = Math.max(current[metric], previous[metric], 1);
          return (
            <li key={metric}>
              <p class="meter-name" id={`${id}-${metric}`}>
                {metrics[metric].name}
              </p>
              <p class="muted">{metrics[metric].counts}</p>
              <p id={`${id}-${metric}-text`}>
                <strong>{formatNumber(current[metric])}</strong> in {monthOf(current)}; {formatNumber(previous[metric])} in{' '}
                {monthOf(previous)}
              </p>
              <meter
                value={current[metric]}
                min={0}
                max={max}
                aria-labelledby={`${id}-${metric}`}
                aria-describedby={`${id}-${metric}-text`}
              >
                {formatNumber(current[metric])}
              </meter>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
