import { idAt, useBuilder } from '../../forms/builder-context.js';
import { allFields, type Scoring, type Step } from '../../forms/draft.js';
import { FieldIssues } from '../FieldIssues.js';
import { GradesEditor } from './GradesEditor.js';
import { ScoringRulesEditor } from './ScoringRulesEditor.js';

/** Lead scoring: the chosen options' scores (set on each option), rules that add points, and the grades. */
export function ScoringEditor(props: { scoring: Scoring; steps: readonly Step[]; onScoring: (scoring: Scoring) => void }) {
  const { scoring } = props;
  const { error } = useBuilder();
  return (
    <section aria-labelledby="scoring-heading" id={idAt('/scoring')} tabIndex={-1}>
      <h2 id="scoring-heading">Scoring</h2>
      <p class="muted">A lead's score is the score of every option chosen plus the points of every scoring rule that holds.</p>
      <FieldIssues id={`${idAt('/scoring')}-issues`} error={error} pointer="/scoring" exact />
      <ScoringRulesEditor
        rules={scoring.rules}
        fields={allFields(props.steps)}
        onRules={(rules) => props.onScoring({ ...scoring, rules })}
      />
      <GradesEditor grades={scoring.grades} onGrades={(grades) => props.onScoring({ ...scoring, grades })} />
    </section>
  );
}
