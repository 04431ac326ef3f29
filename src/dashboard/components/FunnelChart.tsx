import type { Analytics } from '../../client/schemas.js';
import { formatNumber, formatPercent } from '../format.js';
import { TableScroller } from './TableScroller.js';

interface Stage {
  label: string;
  count: number;
  dropped?: { count: number; rate: number };
}

const width = 400;
const rowHeight = 44;
const barTop = 20;
const barHeight = 16;
/** Room right of the longest bar for its figure. */
const figureRoom = 64;

/**
 * The funnel: started, then how many reached each step (the part that dropped off there in the drop-off colour),
 * then completed. A picture for the eye (its label sums it up for a screen reader) over a table of the same numbers.
 */
export function FunnelChart(props: { analytics: Analytics }) {
  const { submissions, steps } = props.analytics;
  const stages: Stage[] = [
    { label: 'Started', count: submissions.started },
    ...steps.map((step) => ({ label: step.title, count: step.reached, dropped: { count: step.dropped_off, rate: step.drop_off_rate } })),
    { label: 'Completed', count: submissions.completed },
  ];
  const most = Math.max(1, ...stages.map((stage) => stage.count));
  const scale = (count: number) => (count / most) * (width - figureRoom);
  const summary = stages
    .map(
      (stage) => `${stage.label} ${formatNumber(stage.count)}${stage.dropped ? ` (${formatNumber(stage.dropped.count)} dropped off)` : ''}`,
    )
    .join(', ');
  return (
    <div class="chart funnel-chart">
      <svg viewBox={`0 0 ${width} ${stages.length * rowHeight}`} role="img" aria-label={`Funnel: ${summary}.`}>
        {stages.map((stage, index) => {
          const y = index * rowHeight;
          const bar = scale(stage.count);
          const dropped = stage.dropped ? scale(stage.dropped.count) : 0;
          return (
            <g key={index}>
              <text x={0} y={y + 14} class="chart-label">
                {stage.label}
              </text>
              <rect x={0} y={y + barTop} width={bar} height={barHeight} class="bar" />
              {dropped > 0 && <rect x={bar - dropped} y={y + barTop} width={dropped} height={barHeight} class="bar-drop" />}
              <text x={bar + 6} y={y + barTop + 13} class="chart-figure">
                {formatNumber(stage.count)}
              </text>
            </g>
          );
        })}
      </svg>
      <p class="legend">
        <span class="swatch bar" aria-hidden="true" /> reached <span class="swatch bar-drop" aria-hidden="true" /> dropped off there
      </p>
      <TableScroller label="Funnel figures">
        <table>
          <caption>Funnel figures</caption>
          <thead>
            <tr>
              <th scope="col">Stage</th>
              <th scope="col" class="number">
                Submissions
              </th>
              <th scope="col" class="number">
                Dropped off
              </th>
              <th scope="col" class="number">
                Drop-off rate
              </th>
            </tr>
          </thead>
          <tbody>
            {stages.map((stage, index) => (
              <tr key={index}>
                <th scope="row">{stage.label}</th>
                <td class="number">{formatNumber(stage.count)}</td>
                <td class="number">{stage.dropped ? formatNumber(stage.dropped.count) : '—'}</td>
                <td class="number">{stage.dropped ? formatPercent(stage.dropped.rate) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroller>
    </div>
  );
}
