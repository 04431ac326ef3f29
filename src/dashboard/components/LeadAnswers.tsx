import type { Field, FormVersion, Submission } from '../../client/schemas.js';
import { formatNumber } from '../format.js';

type Answer = Submission['answers'][string];

/** An answer as a person reads it: a chosen option by its label, yes/no in words, several choices listed. */
function answerText(answer: Answer, field: Field | undefined): string {
  const options = field && 'options' in field ? field.options : undefined;
  const optionLabel = (value: string) => options?.find((option) => option.value === value)?.label ?? value;
  if (typeof answer === 'boolean') return answer ? 'Yes' : 'No';
  if (typeof answer === 'number') return formatNumber(answer);
  if (Array.isArray(answer)) return answer.map(optionLabel).join(', ');
  return optionLabel(answer);
}

/**
 * A lead's answers, under the steps it visited, each by its field's label in the form version that scored it
 * (`version`); when that version is no longer kept, by field `ref`. Answers to fields that version does not have
 * and the hidden values come last.
 */
export function LeadAnswers(props: { lead: Submission; version: FormVersion | undefined }) {
  const { lead, version } = props;
  const steps = version?.steps ?? [];
  const shown = new Set<string>();
  const groups = lead.visited_steps.map((stepId) => {
    const step = steps.find((candidate) => candidate.id === stepId);
    const fields = (step?.fields ?? []).filter((field) => field.type !== 'hidden' && field.ref in lead.answers);
    for (const field of fields) shown.add(field.ref);
    return { stepId, title: step?.title ?? stepId, fields };
  });
  const rest = Object.keys(lead.answers).filter((ref) => !shown.has(ref));
  const hidden = Object.entries(lead.hidden);
  const row = (ref: string, label: string, field: Field | undefined) => (
    <div key={ref} class="answer">
      <dt>{label}</dt>
      <dd>{answerText(lead.answers[ref] as Answer, field)}</dd>
    </div>
  );
  return (
    <div class="lead-answers">
      {groups.map((group) => (
        <section key={group.stepId} aria-labelledby={`step-${group.stepId}`}>
          <h3 id={`step-${group.stepId}`}>{group.title}</h3>
          {group.fields.length === 0 ? (
            <p class="muted">No answers on this step.</p>
          ) : (
            <dl class="pairs">{group.fields.map((field) => row(field.ref, field.label, field))}</dl>
          )}
        </section>
      ))}
      {rest.length > 0 && (
        <section aria-labelledby="answers-other">
          <h3 id="answers-other">{version ? 'Other answers' : 'Answers'}</h3>
          <dl class="pairs">{rest.map((ref) => row(ref, ref, undefined))}</dl>
        </section>
      )}
      {hidden.length > 0 && (
        <section aria-labelledby="answers-hidden">
          <h3 id="answers-hidden">Hidden values</h3>
          <dl class="pairs">
            {hidden.map(([ref, value]) => (
              <div key={ref} class="answer">
                <dt>{steps.flatMap((step) => step.fields).find((field) => field.ref === ref)?.label ?? ref}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
    </div>
  );
}
