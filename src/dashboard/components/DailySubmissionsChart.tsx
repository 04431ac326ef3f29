import type { Analytics } from '../../client/schemas.js';
import { formatNumber } from '../format.js';
import { TableScroller } from './TableScroller.js';

const width = 400;
const height = 160;
const axisRoom = 18;

/**
 * Submissions per day (UTC): a column per day, started with the completed part darker, the first and last day
 * and the busiest day's count written on it; every day's figures in a table under "Figures per day".
 */
export function DailySubmissionsChart(props: { daily: Analytics['daily'] }) {
  const days = props.daily;
  const most = Math.max(1, ...days.map((day) => day.started));
  const slot = width / Math.max(days.length, 1);
  const plot = height - axisRoom;
  const scale = (count: number) => (count / most) * (plot - 14);
  const started = days.reduce((sum, day) => sum + day.started, 0);
  const completed = days.reduce((sum, day) => sum + day.completed, 0);
  const first = days[0]?.date ?? '';
  const last = days.at(-1)?.date ?? '';
  const summary =
    `Submissions per day from ${first} to ${last}: ${formatNumber(started)} started and ${formatNumber(completed)} completed ` +
    `over ${days.length} days, at most ${formatNumber(Math.max(0, ...days.map((day) => day.started)))} in one day.`;
  return (
    <div class="chart daily-chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary}>
        <text x={0} y={10} class="chart-figure">
          {formatNumber(most)}
        </text>
        <line x1={0} x2={width} y1={plot} y2={plot} class="axis" />
        {days.map((day, index) => {
          const x = index * slot + slot * 0.15;
          const barWidth = Math.max(slot * 0.7, 1);
          return (
            <g key={day.date}>
              <rect x={x} y={plot - scale(day.started)} width={barWidth} height={scale(day.started)} class="bar-light" />
              <rect x={x} y={plot - scale(day.completed)} width={barWidth} height={scale(day.completed)} class="bar" />
            </g>
          );
        })}
        <text x={0} y={height - 3} class="chart-label">
          {first}
        </text>
        <text x={width} y={height - 3} class="chart-label" text-anchor="end">
          {last}
        </text>
      </svg>
      <p class="legend">
        <span class="swatch bar-light" aria-hidden="true" /> started <span class="swatch bar" aria-hidden="true" /> completed
      </p>
      <details class="daily-figures">
        <summary>Figures per day</summary>
        <TableScroller label="Submissions per day (UTC)">
          <table>
            <caption>Submissions per day (UTC)</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" class="number">
                  Started
                </th>
                <th scope="col" class="number">
                  Completed
                </th>
              </tr>
            </thead>
            <tbody>
              {days.map((day) => (
                <tr key={day.date}>
                  <th scope="row">{day.date}</th>
                  <td class="number">{formatNumber(day.started)}</td>
                  <td class="number">{formatNumber(day.completed)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroller>
      </details>
    </div>
  );
}
