import type { ComponentChildren } from 'preact';
import { focusSoon, idAt, useBuilder } from '../../forms/builder-context.js';
import {
  type ConditionKind,
  childrenOf,
  comparesValue,
  kindOf,
  newCondition,
  type Operator,
  operatorLabels,
  operators,
  withField,
  withKind,
  withOperator,
} from '../../forms/conditions.js';
import { type Condition, type Field, type FieldCondition, removed, replaced } from '../../forms/draft.js';
import { isChoiceField } from '../../forms/field-types.js';
import { FieldIssues } from '../FieldIssues.js';
import { DraftNumber } from './DraftNumber.js';
import { DraftSelect } from './DraftSelect.js';
import { DraftText } from './DraftText.js';

const kindOptions: Array<{ value: ConditionKind; label: string }> = [
  { value: 'field', label: 'An answer' },
  { value: 'all', label: 'All of these' },
  { value: 'any', label: 'Any of these' },
];
const operatorOptions = operators.map((op) => ({ value: op, label: operatorLabels[op] }));
const yesNo = [
  { value: 'true', label: 'Yes' },
  { value: 'false', label: 'No' },
];

/** The value a field test compares with, as an input of the field's kind. */
function ValueInput(props: {
  condition: FieldCondition & { value: unknown };
  field: Field | undefined;
  pointer: string;
  onValue: (value: unknown) => void;
}) {
  const { field, condition, pointer } = props;
  const at = `${pointer}/value`;
  if (field && isChoiceField(field))
    return (
      <DraftSelect
        pointer={at}
        label="Option"
        value={String(condition.value)}
        options={field.options.map((option) => ({ value: option.value, label: option.label || option.value }))}
        onValue={props.onValue}
      />
    );
  if (field && (field.type === 'yes_no' || field.type === 'consent'))
    return (
      <DraftSelect
        pointer={at}
        label="Answer"
        value={String(condition.value)}
        options={yesNo}
        onValue={(value) => props.onValue(value === 'true')}
      />
    );
  if (field && (field.type === 'number' || field.type === 'rating'))
    return (
      <DraftNumber
        pointer={at}
        label="Number"
        integer={field.type === 'rating'}
        value={typeof condition.value === 'number' ? condition.value : undefined}
        onValue={props.onValue}
      />
    );
  return (
    <DraftText
      pointer={at}
      label={field?.type === 'date' ? 'Date' : 'Text'}
      type={field?.type === 'date' ? 'date' : 'text'}
      value={String(condition.value ?? '')}
      onValue={props.onValue}
    />
  );
}

/**
 * A condition over the answers: a test of one field (field, operator, value), or all / any of nested conditions,
 * each edited by this same component. Fields are offered by question and key from the whole form; which of them a
 * rule may test is the API's to say.
 */
export function ConditionEditor(props: {
  condition: Condition;
  pointer: string;
  legend: string;
  fields: readonly Field[];
  onCondition: (condition: Condition) => void;
  onRemove?: () => void;
}) {
  const { error, readOnly } = useBuilder();
  const { condition, pointer: at, fields } = props;
  const kind = kindOf(condition);
  const fieldOptions = fields.map((field) => ({ value: field.ref, label: field.label ? `${field.label} (${field.ref})` : field.ref }));
  let body: ComponentChildren;
  if (kind === 'field') {
    const test = condition as FieldCondition;
    const field = fields.find((candidate) => candidate.ref === test.field);
    body = (
      <div class="condition-test">
        <DraftSelect
          pointer={`${at}/field`}
          label="Field"
          value={test.field}
          options={fieldOptions}
          onValue={(ref) =>
            props.onCondition(
              withField(
                test,
                ref,
                fields.find((candidate) => candidate.ref === ref),
              ),
            )
          }
        />
        <DraftSelect
          pointer={`${at}/op`}
          label="Operator"
          value={test.op}
          options={operatorOptions}
          onValue={(op) => props.onCondition(withOperator(test, op as Operator, field))}
        />
        {comparesValue(test.op) && 'value' in test && (
          <ValueInput condition={test} field={field} pointer={at} onValue={(value) => props.onCondition({ ...test, value } as Condition)} />
        )}
      </div>
    );
  } else {
    const member = kind as 'all' | 'any';
    const children = childrenOf(condition);
    const set = (next: Condition[]) => props.onCondition((member === 'all' ? { all: next } : { any: next }) as Condition);
    body = (
      <div class="condition-group" id={idAt(`${at}/${member}`)} tabIndex={-1}>
        <FieldIssues id={`${idAt(`${at}/${member}`)}-issues`} error={error} pointer={`${at}/${member}`} exact />
        {children.map((child, index) => (
          <ConditionEditor
            key={index}
            condition={child}
            pointer={`${at}/${member}/${index}`}
            legend={`Condition ${index + 1}`}
            fields={fields}
            onCondition={(next) => set(replaced(children, index, next))}
            onRemove={children.length > 1 ? () => set(removed(children, index)) : undefined}
          />
        ))}
        {!readOnly && (
          <button
            type="button"
            onClick={() => {
              set([...children, newCondition(fields)]);
              focusSoon(`${idAt(`${at}/${member}/${children.length}`)}-kind`);
            }}
          >
            Add condition<span class="visually-hidden"> to {props.legend}</span>
          </button>
        )}
      </div>
    );
  }
  return (
    <fieldset class="condition" id={idAt(at)} tabIndex={-1}>
      <legend>{props.legend}</legend>
      <FieldIssues id={`${idAt(at)}-issues`} error={error} pointer={at} exact />
      <DraftSelect
        pointer={`${at}-kind`}
        label="Test"
        value={kind}
        options={kindOptions}
        onValue={(next) => props.onCondition(withKind(condition, next as ConditionKind, fields))}
      />
      {body}
      {props.onRemove && !readOnly && (
        <button type="button" class="danger" onClick={props.onRemove}>
          Remove<span class="visually-hidden"> {props.legend}</span>
        </button>
      )}
    </fieldset>
  );
}
