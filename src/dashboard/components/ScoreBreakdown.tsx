import type { FormVersion, Submission } from '../../client/schemas.js';
import { formatNumber } from '../format.js';
import { TableScroller } from './TableScroller.js';

/** Where a lead's score comes from: each chosen option with points and each scoring rule that held. */
export function ScoreBreakdown(props: { lead: Submission; version: FormVersion | undefined }) {
  const fields = props.version?.steps.flatMap((step) => step.fields) ?? [];
  const sourceOf = (part: Submission['score_breakdown'][number]): string => {
    if (part.source === 'rule') return `Rule ${part.rule_id}`;
    const field = fields.find((candidate) => candidate.ref === part.field);
    const option = field && 'options' in field ? field.options?.find((candidate) => candidate.value === part.option) : undefined;
    return `${field?.label ?? part.field}: ${option?.label ?? part.option}`;
  };
  if (props.lead.score_breakdown.length === 0) return <p class="muted">No option or rule added points.</p>;
  return (
    <TableScroller label="Score breakdown">
      <table>
        <caption>Score breakdown</caption>
        <thead>
          <tr>
            <th scope="col">From</th>
            <th scope="col" class="number">
              Points
            </th>
          </tr>
        </thead>
        <tbody>
          {props.lead.score_breakdown.map((part, index) => (
            <tr key={index}>
              <td>{sourceOf(part)}</td>
              <td class="number">{formatNumber(part.points)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroller>
  );
}
