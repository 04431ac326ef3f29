import type { SubmissionContext } from '../../client/schemas.js';

/** Where the lead came from: its UTM parameters, referrer, landing page and browser, as stored at creation. */
export function LeadContext(props: { context: SubmissionContext }) {
  const { context } = props;
  const rows: Array<[string, string | null]> = [
    ['UTM source', context.utm.source],
    ['UTM medium', context.utm.medium],
    ['UTM campaign', context.utm.campaign],
    ['UTM term', context.utm.term],
    ['UTM content', context.utm.content],
    ['Referrer', context.referrer],
    ['Landing page', context.landing_url],
    ['Browser', context.user_agent],
  ];
  return (
    <dl class="pairs lead-context">
      {rows.map(([name, value]) => (
        <div key={name} class="answer">
          <dt>{name}</dt>
          <dd>{value ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}
