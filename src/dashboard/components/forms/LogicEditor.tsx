import { focusSoon, idAt, useBuilder } from '../../forms/builder-context.js';
import { newCondition } from '../../forms/conditions.js';
import { allFields, freeId, type LogicRule, moved, removed, replaced, type Step } from '../../forms/draft.js';
import { FieldIssues } from '../FieldIssues.js';
import { LogicRuleEditor } from './LogicRuleEditor.js';

/** The form's branching rules. Without a rule that matches, a step is followed by the next one. */
export function LogicEditor(props: { logic: LogicRule[]; steps: readonly Step[]; onLogic: (logic: LogicRule[]) => void }) {
  const { error, readOnly } = useBuilder();
  const { logic, steps } = props;
  const fields = allFields(steps);
  return (
    <section aria-labelledby="logic-heading" id={idAt('/logic')} tabIndex={-1}>
      <h2 id="logic-heading">Logic</h2>
      <p class="muted">
        After a step, the first of its rules whose condition holds decides where the respondent goes; with none, the next step follows.
      </p>
      <FieldIssues id={`${idAt('/logic')}-issues`} error={error} pointer="/logic" exact />
      {logic.map((rule, index) => (
        <LogicRuleEditor
          key={index}
          rule={rule}
          index={index}
          count={logic.length}
          steps={steps}
          fields={fields}
          onRule={(next) => props.onLogic(replaced(logic, index, next))}
          onMove={(by) => props.onLogic(moved(logic, index, by))}
          onRemove={() => props.onLogic(removed(logic, index))}
        />
      ))}
      {!readOnly && (
        <button
          type="button"
          onClick={() => {
            const from = steps[0]?.id ?? '';
            const rule: LogicRule = {
              id: freeId(
                'rule',
                logic.map((item) => item.id),
              ),
              from_step: from,
              when: newCondition(steps[0]?.fields ?? []),
              then: steps[1] ? { action: 'jump_to_step', step: steps[1].id } : { action: 'end_form' },
            };
            props.onLogic([...logic, rule]);
            focusSoon(idAt(`/logic/${logic.length}/from_step`));
          }}
        >
          Add rule
        </button>
      )}
    </section>
  );
}
