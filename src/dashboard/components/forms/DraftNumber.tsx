import { hasIssueAt, idAt, useBuilder } from '../../forms/builder-context.js';
import { FieldIssues } from '../FieldIssues.js';

/**
 * A labelled number input for one number of the draft (an option's score, a grade's minimum); empty means the member
 * is left out, so the API applies its default or says it is required.
 */
export function DraftNumber(props: {
  pointer: string;
  label: string;
  value: number | undefined;
  onValue: (value: number | undefined) => void;
  hint?: string;
  integer?: boolean;
}) {
  const { error, readOnly } = useBuilder();
  const id = idAt(props.pointer);
  const invalid = hasIssueAt(error, props.pointer);
  const describedBy = [props.hint ? `${id}-hint` : '', invalid ? `${id}-issues` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field number">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        type="number"
        step={props.integer === false ? 'any' : 1}
        inputMode={props.integer === false ? 'decimal' : 'numeric'}
        value={props.value ?? ''}
        readOnly={readOnly}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        onInput={(event) => {
          const text = event.currentTarget.value.trim();
          // A half-typed number ("-") reads as empty: the input keeps what was typed.
          if (text === '') return props.onValue(undefined);
          const value = Number(text);
          if (Number.isFinite(value)) props.onValue(value);
        }}
      />
      {props.hint && (
        <p class="muted hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      <FieldIssues id={`${id}-issues`} error={error} pointer={props.pointer} exact />
    </div>
  );
}
