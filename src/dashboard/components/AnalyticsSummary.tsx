import type { Analytics } from '../../client/schemas.js';
import { formatNumber, formatPercent } from '../format.js';

/** The headline figures of a form's funnel: started, completed, completion rate, spam caught, average score. */
export function AnalyticsSummary(props: { analytics: Analytics }) {
  const { submissions, spam, score } = props.analytics;
  const figures: Array<[string, string]> = [
    ['Started', formatNumber(submissions.started)],
    ['Completed', formatNumber(submissions.completed)],
    ['Completion rate', formatPercent(submissions.completion_rate)],
    ['Spam caught', formatNumber(spam)],
    ['Average score', score.average === null ? '—' : formatNumber(score.average)],
  ];
  return (
    <dl class="figures">
      {figures.map(([name, value]) => (
        <div key={name} class="figure">
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
