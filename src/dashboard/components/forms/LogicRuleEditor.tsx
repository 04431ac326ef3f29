import { idAt, useBuilder } from '../../forms/builder-context.js';
import type { Field, LogicRule, Step } from '../../forms/draft.js';
import { FieldIssues } from '../FieldIssues.js';
import { ConditionEditor } from './ConditionEditor.js';
import { DraftSelect } from './DraftSelect.js';
import { DraftText } from './DraftText.js';
import { ListControls } from './ListControls.js';

const actionOptions = [
  { value: 'jump_to_step', label: 'Go to a later step' },
  { value: 'end_form', label: 'End the form' },
];

/**
 * One branching rule: after the respondent leaves `from_step`, if the condition holds, go to a step (a later one: the
 * API refuses a jump backwards or to the same step) or end the form. A step's rules apply in list order.
 */
export function LogicRuleEditor(props: {
  rule: LogicRule;
  index: number;
  count: number;
  steps: readonly Step[];
  fields: readonly Field[];
  onRule: (rule: LogicRule) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const { rule, index } = props;
  const { error } = useBuilder();
  const at = `/logic/${index}`;
  const name = `Rule ${index + 1}`;
  const stepOptions = props.steps.map((step, position) => ({ value: step.id, label: `Step ${position + 1}: ${step.title}` }));
  return (
    <fieldset class="rule" id={idAt(at)} tabIndex={-1}>
      <legend>{name}</legend>
      <FieldIssues id={`${idAt(at)}-issues`} error={error} pointer={at} exact />
      <div class="rule-basics">
        <DraftSelect
          pointer={`${at}/from_step`}
          label="After step"
          value={rule.from_step}
          options={stepOptions}
          onValue={(from_step) => props.onRule({ ...rule, from_step })}
        />
        <DraftText pointer={`${at}/id`} label="Rule id" value={rule.id} onValue={(id) => props.onRule({ ...rule, id })} />
      </div>
      <ConditionEditor
        condition={rule.when}
        pointer={`${at}/when`}
        legend={`When (${name})`}
        fields={props.fields}
        onCondition={(when) => props.onRule({ ...rule, when })}
      />
      <div class="rule-basics" id={idAt(`${at}/then`)} tabIndex={-1}>
        <FieldIssues id={`${idAt(`${at}/then`)}-issues`} error={error} pointer={`${at}/then`} exact />
        <DraftSelect
          pointer={`${at}/then/action`}
          label="Then"
          value={rule.then.action}
          options={actionOptions}
          onValue={(action) => {
            const later = props.steps[props.steps.findIndex((step) => step.id === rule.from_step) + 1];
            props.onRule({
              ...rule,
              then: action === 'end_form' ? { action: 'end_form' } : { action: 'jump_to_step', step: later?.id ?? '' },
            });
          }}
        />
        {rule.then.action === 'jump_to_step' && (
          <DraftSelect
            pointer={`${at}/then/step`}
            label="Go to"
            value={rule.then.step}
            options={stepOptions}
            onValue={(step) => props.onRule({ ...rule, then: { action: 'jump_to_step', step } })}
          />
        )}
      </div>
      <ListControls name={name} idPrefix={idAt(at)} index={index} count={props.count} onMove={props.onMove} onRemove={props.onRemove} />
    </fieldset>
  );
}
