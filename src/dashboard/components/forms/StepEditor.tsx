import { focusSoon, idAt, useBuilder } from '../../forms/builder-context.js';
import { allFields, type Field, freeId, moved, removed, replaced, type Step } from '../../forms/draft.js';
import { newField } from '../../forms/field-types.js';
import { FieldIssues } from '../FieldIssues.js';
import { DraftText } from './DraftText.js';
import { FieldEditor } from './FieldEditor.js';
import { ListControls } from './ListControls.js';

/** One step (a page of the funnel): its title, id and description, and its fields. */
export function StepEditor(props: {
  step: Step;
  index: number;
  count: number;
  /** Every step of the draft: a new field's key must be unique in the whole form. */
  steps: readonly Step[];
  onStep: (step: Step) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
}) {
  const { error, readOnly } = useBuilder();
  const { step, index } = props;
  const at = `/steps/${index}`;
  const name = `Step ${index + 1}`;
  const headingId = `${idAt(at)}-heading`;
  const setFields = (fields: Field[]) => props.onStep({ ...step, fields });
  return (
    <section class="step-editor card" aria-labelledby={headingId} id={idAt(at)} tabIndex={-1}>
      <h3 id={headingId}>
        {name}: {step.title}
      </h3>
      <FieldIssues id={`${idAt(at)}-issues`} error={error} pointer={at} exact />
      <div class="step-basics">
        <DraftText pointer={`${at}/title`} label="Title" value={step.title} onValue={(title) => props.onStep({ ...step, title })} />
        <DraftText
          pointer={`${at}/id`}
          label="Step id"
          hint="Logic rules name the step by its id."
          value={step.id}
          onValue={(id) => props.onStep({ ...step, id })}
        />
      </div>
      <DraftText
        pointer={`${at}/description`}
        label="Description"
        multiline
        value={step.description}
        onValue={(description) => {
          const { description: _old, ...rest } = step;
          props.onStep(description === '' ? rest : { ...rest, description });
        }}
      />
      <div id={idAt(`${at}/fields`)} tabIndex={-1}>
        <FieldIssues id={`${idAt(`${at}/fields`)}-issues`} error={error} pointer={`${at}/fields`} exact />
        {step.fields.length === 0 && <p class="muted">No fields yet.</p>}
        {step.fields.map((field, fieldIndex) => (
          <FieldEditor
            key={fieldIndex}
            field={field}
            pointer={`${at}/fields/${fieldIndex}`}
            index={fieldIndex}
            count={step.fields.length}
            onField={(next) => setFields(replaced(step.fields, fieldIndex, next))}
            onMove={(by) => setFields(moved(step.fields, fieldIndex, by))}
            onRemove={() => setFields(removed(step.fields, fieldIndex))}
          />
        ))}
      </div>
      {!readOnly && (
        <div class="actions">
          <button
            type="button"
            onClick={() => {
              const ref = freeId(
                'field',
                allFields(props.steps).map((field) => field.ref),
              );
              setFields([...step.fields, newField(ref)]);
              focusSoon(idAt(`${at}/fields/${step.fields.length}/label`));
            }}
          >
            Add field<span class="visually-hidden"> to {name}</span>
          </button>
        </div>
      )}
      <ListControls
        name={name}
        idPrefix={idAt(at)}
        index={index}
        count={props.count}
        onMove={(by) => {
          props.onMove(by);
          const to = idAt(`/steps/${index + by}`);
          focusSoon(`${to}-${by < 0 ? 'up' : 'down'}`, to);
        }}
        onRemove={props.onRemove}
      />
    </section>
  );
}
