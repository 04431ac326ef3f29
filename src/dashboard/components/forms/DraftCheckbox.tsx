import { hasIssueAt, idAt, useBuilder } from '../../forms/builder-context.js';
import { FieldIssues } from '../FieldIssues.js';

/** A labelled checkbox for one boolean of the draft (a field's `required`, hosting's `enabled`). */
export function DraftCheckbox(props: {
  pointer: string;
  label: string;
  checked: boolean;
  onValue: (value: boolean) => void;
  hint?: string;
}) {
  const { error, readOnly } = useBuilder();
  const id = idAt(props.pointer);
  const invalid = hasIssueAt(error, props.pointer);
  const describedBy = [props.hint ? `${id}-hint` : '', invalid ? `${id}-issues` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field checkbox">
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        disabled={readOnly}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        onChange={(event) => props.onValue(event.currentTarget.checked)}
      />
      <label for={id}>{props.label}</label>
      {props.hint && (
        <p class="muted hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      <FieldIssues id={`${id}-issues`} error={error} pointer={props.pointer} exact />
    </div>
  );
}
