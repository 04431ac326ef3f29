import { focusSoon, idAt, useBuilder } from '../../forms/builder-context.js';
import type { Field } from '../../forms/draft.js';
import { fieldOfType, fieldTypeLabels, fieldTypes, followsLabel, isChoiceField, keyFrom } from '../../forms/field-types.js';
import { FieldIssues } from '../FieldIssues.js';
import { DraftCheckbox } from './DraftCheckbox.js';
import { DraftSelect } from './DraftSelect.js';
import { DraftText } from './DraftText.js';
import { FieldTypeSettings } from './FieldTypeSettings.js';
import { ListControls } from './ListControls.js';
import { OptionsEditor } from './OptionsEditor.js';

const typeOptions = fieldTypes.map((type) => ({ value: type, label: fieldTypeLabels[type] }));

/**
 * One field of a step: its type, question, key, help text and whether it is required, the settings of its type, and
 * a choice field's options with their scores. A new field's key follows its question until the person sets one.
 */
export function FieldEditor(props: {
  field: Field;
  pointer: string;
  index: number;
  count: number;
  onField: (field: Field) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const { field, pointer: at } = props;
  const { error } = useBuilder();
  const name = `Field ${props.index + 1}`;
  return (
    <fieldset class="field-editor" id={idAt(at)} tabIndex={-1}>
      <legend>
        {name}
        <span class="muted"> · {fieldTypeLabels[field.type] ?? field.type}</span>
      </legend>
      <FieldIssues id={`${idAt(at)}-issues`} error={error} pointer={at} exact />
      <div class="field-basics">
        <DraftText
          pointer={`${at}/label`}
          label="Question"
          value={field.label}
          onValue={(label) =>
            props.onField({
              ...field,
              label,
              ref: followsLabel(field.ref, field.label, /^field_\d+$/) && keyFrom(label) ? keyFrom(label) : field.ref,
            })
          }
        />
        <DraftText
          pointer={`${at}/ref`}
          label="Key"
          hint="Answers, logic and scoring name the field by its key: lower case, digits and _."
          value={field.ref}
          onValue={(ref) => props.onField({ ...field, ref })}
        />
        <DraftSelect
          pointer={`${at}/type`}
          label="Type"
          value={field.type}
          options={typeOptions}
          onValue={(type) => props.onField(fieldOfType(field, type as Field['type']))}
        />
      </div>
      <DraftText
        pointer={`${at}/description`}
        label="Help text"
        multiline
        value={field.description}
        onValue={(description) => {
          const { description: _old, ...rest } = field;
          props.onField((description === '' ? rest : { ...rest, description }) as Field);
        }}
      />
      {field.type !== 'hidden' && (
        <DraftCheckbox
          pointer={`${at}/required`}
          label="Required"
          checked={field.required === true}
          onValue={(required) => props.onField({ ...field, required })}
        />
      )}
      <FieldTypeSettings field={field} pointer={at} onField={props.onField} />
      {isChoiceField(field) && (
        <OptionsEditor options={field.options} pointer={at} onOptions={(options) => props.onField({ ...field, options })} />
      )}
      <ListControls
        name={name}
        idPrefix={idAt(at)}
        index={props.index}
        count={props.count}
        onMove={(by) => {
          props.onMove(by);
          const to = idAt(`${at.slice(0, at.lastIndexOf('/'))}/${props.index + by}`);
          focusSoon(`${to}-${by < 0 ? 'up' : 'down'}`, to);
        }}
        onRemove={props.onRemove}
      />
    </fieldset>
  );
}
