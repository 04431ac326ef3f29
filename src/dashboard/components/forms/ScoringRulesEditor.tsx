import { focusSoon, idAt, useBuilder } from '../../forms/builder-context.js';
import { newCondition } from '../../forms/conditions.js';
import { type Field, freeId, removed, replaced, type Scoring } from '../../forms/draft.js';
import { FieldIssues } from '../FieldIssues.js';
import { ConditionEditor } from './ConditionEditor.js';
import { DraftNumber } from './DraftNumber.js';
import { DraftText } from './DraftText.js';
import { ListControls } from './ListControls.js';

type ScoringRule = Scoring['rules'][number];

/** Rules that add points to the lead score when their condition holds (besides the chosen options' scores). */
export function ScoringRulesEditor(props: { rules: ScoringRule[]; fields: readonly Field[]; onRules: (rules: ScoringRule[]) => void }) {
  const { error, readOnly } = useBuilder();
  const { rules } = props;
  return (
    <div id={idAt('/scoring/rules')} tabIndex={-1}>
      <h3>Scoring rules</h3>
      <FieldIssues id={`${idAt('/scoring/rules')}-issues`} error={error} pointer="/scoring/rules" exact />
      {rules.length === 0 && <p class="muted">No scoring rules: the score is the sum of the chosen options' scores.</p>}
      {rules.map((rule, index) => {
        const at = `/scoring/rules/${index}`;
        const name = `Scoring rule ${index + 1}`;
        const set = (next: ScoringRule) => props.onRules(replaced(rules, index, next));
        return (
          <fieldset class="rule" key={index} id={idAt(at)} tabIndex={-1}>
            <legend>{name}</legend>
            <FieldIssues id={`${idAt(at)}-issues`} error={error} pointer={at} exact />
            <div class="rule-basics">
              <DraftText pointer={`${at}/id`} label="Rule id" value={rule.id} onValue={(id) => set({ ...rule, id })} />
              <DraftNumber
                pointer={`${at}/points`}
                label="Points"
                value={rule.points}
                onValue={(points) => set({ ...rule, points: points as number })}
              />
            </div>
            <ConditionEditor
              condition={rule.when}
              pointer={`${at}/when`}
              legend={`When (${name})`}
              fields={props.fields}
              onCondition={(when) => set({ ...rule, when })}
            />
            <ListControls
              name={name}
              idPrefix={idAt(at)}
              index={index}
              count={rules.length}
              onRemove={() => props.onRules(removed(rules, index))}
            />
          </fieldset>
        );
      })}
      {!readOnly && (
        <button
          type="button"
          onClick={() => {
            const id = freeId(
              'score',
              rules.map((rule) => rule.id),
            );
            props.onRules([...rules, { id, when: newCondition(props.fields), points: 10 }]);
            focusSoon(idAt(`/scoring/rules/${rules.length}/id`));
          }}
        >
          Add scoring rule
        </button>
      )}
    </div>
  );
}
