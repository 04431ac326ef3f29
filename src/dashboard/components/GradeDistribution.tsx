import type { Analytics } from '../../client/schemas.js';
import { formatNumber } from '../format.js';
import { TableScroller } from './TableScroller.js';

const width = 400;
const rowHeight = 28;
const labelRoom = 90;
const figureRoom = 48;

/** Completed leads by grade (highest grade first, then no grade), as bars over a table of the same counts. */
export function GradeDistribution(props: { grades: Analytics['score']['grades'] }) {
  const rows = props.grades.map((grade) => ({ label: grade.label ?? 'No grade', count: grade.count }));
  const most = Math.max(1, ...rows.map((row) => row.count));
  const scale = (count: number) => (count / most) * (width - labelRoom - figureRoom);
  const summary = rows.map((row) => `${row.label} ${formatNumber(row.count)}`).join(', ');
  return (
    <div class="chart grade-chart">
      <svg
        viewBox={`0 0 ${width} ${Math.max(rows.length, 1) * rowHeight}`}
        role="img"
        aria-label={`Completed leads by grade: ${summary || 'none'}.`}
      >
        {rows.map((row, index) => {
          const y = index * rowHeight;
          return (
            <g key={index}>
              <text x={0} y={y + 18} class="chart-label">
                {row.label}
              </text>
              <rect x={labelRoom} y={y + 5} width={scale(row.count)} height={rowHeight - 10} class="bar" />
              <text x={labelRoom + scale(row.count) + 6} y={y + 18} class="chart-figure">
                {formatNumber(row.count)}
              </text>
            </g>
          );
        })}
      </svg>
      <TableScroller label="Completed leads by grade">
        <table>
          <caption>Completed leads by grade</caption>
          <thead>
            <tr>
              <th scope="col">Grade</th>
              <th scope="col" class="number">
                Leads
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={index}>
                <th scope="row">{row.label}</th>
                <td class="number">{formatNumber(row.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroller>
    </div>
  );
}
