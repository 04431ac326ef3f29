import type { Analytics } from '../../client/schemas.js';
import { formatNumber } from '../format.js';
import { TableScroller } from './TableScroller.js';

/** Started and completed submissions by UTM source: the top 20, then the rest summed. */
export function UtmSourcesTable(props: { sources: Analytics['utm_sources'] }) {
  const { top, other } = props.sources;
  return (
    <TableScroller label="Submissions by UTM source">
      <table>
        <caption>Submissions by UTM source</caption>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col" class="number">
              Started
            </th>
            <th scope="col" class="number">
              Completed
            </th>
          </tr>
        </thead>
        <tbody>
          {top.map((source) => (
            <tr key={source.source ?? ''}>
              <th scope="row">{source.source ?? 'No source'}</th>
              <td class="number">{formatNumber(source.started)}</td>
              <td class="number">{formatNumber(source.completed)}</td>
            </tr>
          ))}
          {other.sources > 0 && (
            <tr>
              <th scope="row">{`${formatNumber(other.sources)} other sources`}</th>
              <td class="number">{formatNumber(other.started)}</td>
              <td class="number">{formatNumber(other.completed)}</td>
            </tr>
          )}
        </tbody>
      </table>
      {top.length === 0 && <p class="muted">No submissions in this range.</p>}
    </TableScroller>
  );
}
