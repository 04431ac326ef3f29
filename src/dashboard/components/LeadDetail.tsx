import type { FormVersion, Submission } from '../../client/schemas.js';
import { formatDateTime, formatNumber } from '../format.js';
import { LeadAnswers } from './LeadAnswers.js';
import { LeadContext } from './LeadContext.js';
import { ScoreBreakdown } from './ScoreBreakdown.js';

/**
 * One lead (a submission) as the API returns it: score and grade, status and dates, the steps it went through, its
 * answers and where it came from. `version` is the form version that scored it, for labels and step titles.
 */
export function LeadDetail(props: { lead: Submission; version: FormVersion | undefined }) {
  const { lead, version } = props;
  const stepTitle = (id: string) => version?.steps.find((step) => step.id === id)?.title ?? id;
  return (
    <div class="lead-detail">
      <dl class="pairs lead-summary">
        <div class="answer">
          <dt>Score</dt>
          <dd>{formatNumber(lead.score)}</dd>
        </div>
        <div class="answer">
          <dt>Grade</dt>
          <dd>{lead.grade ?? 'None'}</dd>
        </div>
        <div class="answer">
          <dt>Status</dt>
          <dd>{lead.status}</dd>
        </div>
        <div class="answer">
          <dt>Form</dt>
          <dd>
            {version?.name ?? lead.form_id}, version {lead.form_version}
          </dd>
        </div>
        <div class="answer">
          <dt>Created</dt>
          <dd>{formatDateTime(lead.created_at)}</dd>
        </div>
        <div class="answer">
          <dt>Completed</dt>
          <dd>{formatDateTime(lead.completed_at)}</dd>
        </div>
        <div class="answer">
          <dt>Scored</dt>
          <dd>{formatDateTime(lead.scored_at)}</dd>
        </div>
        {lead.test && (
          <div class="answer">
            <dt>Environment</dt>
            <dd>Test</dd>
          </div>
        )}
      </dl>
      <h2>Score breakdown</h2>
      <ScoreBreakdown lead={lead} version={version} />
      <h2>Visited steps</h2>
      <ol class="visited-steps">
        {lead.visited_steps.map((id) => (
          <li key={id}>{stepTitle(id)}</li>
        ))}
      </ol>
      <h2>Answers</h2>
      <LeadAnswers lead={lead} version={version} />
      <h2>Context</h2>
      <LeadContext context={lead.context} />
      {Object.keys(lead.metadata).length > 0 && (
        <>
          <h2>Metadata</h2>
          <dl class="pairs">
            {Object.entries(lead.metadata).map(([key, value]) => (
              <div key={key} class="answer">
                <dt>{key}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </>
      )}
    </div>
  );
}
