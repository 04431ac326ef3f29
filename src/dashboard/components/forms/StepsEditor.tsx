import { focusSoon, idAt, useBuilder } from '../../forms/builder-context.js';
import { freeId, moved, removed, replaced, type Step } from '../../forms/draft.js';
import { FieldIssues } from '../FieldIssues.js';
import { StepEditor } from './StepEditor.js';

/** The form's steps in order, each with its fields; steps can be added, reordered and removed. */
export function StepsEditor(props: { steps: Step[]; onSteps: (steps: Step[]) => void }) {
  const { error, readOnly } = useBuilder();
  const { steps } = props;
  return (
    <section aria-labelledby="steps-heading" id={idAt('/steps')} tabIndex={-1}>
      <h2 id="steps-heading">Steps</h2>
      <FieldIssues id={`${idAt('/steps')}-issues`} error={error} pointer="/steps" exact />
      {steps.length === 0 && <p class="muted">No steps yet: a form needs at least one to be answered.</p>}
      {steps.map((step, index) => (
        <StepEditor
          key={index}
          step={step}
          index={index}
          count={steps.length}
          steps={steps}
          onStep={(next) => props.onSteps(replaced(steps, index, next))}
          onMove={(by) => props.onSteps(moved(steps, index, by))}
          onRemove={() => props.onSteps(removed(steps, index))}
        />
      ))}
      {!readOnly && (
        <button
          type="button"
          onClick={() => {
            const id = freeId(
              'step',
              steps.map((step) => step.id),
            );
            props.onSteps([...steps, { id, title: `Step ${steps.length + 1}`, fields: [] }]);
            focusSoon(idAt(`/steps/${steps.length}/title`));
          }}
        >
          Add step
        </button>
      )}
    </section>
  );
}
