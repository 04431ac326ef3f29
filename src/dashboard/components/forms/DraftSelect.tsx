import { hasIssueAt, idAt, useBuilder } from '../../forms/builder-context.js';
import { FieldIssues } from '../FieldIssues.js';

/** A labelled choice among fixed values for one member of the draft (a field's type, a rule's target step). */
export function DraftSelect(props: {
  pointer: string;
  label: string;
  value: string;
  /** Each choice; `lang` names a label's language when it is not English (a language's own name). */
  options: ReadonlyArray<{ value: string; label: string; lang?: string }>;
  onValue: (value: string) => void;
  hint?: string;
}) {
  const { error, readOnly } = useBuilder();
  const id = idAt(props.pointer);
  const invalid = hasIssueAt(error, props.pointer);
  const describedBy = [props.hint ? `${id}-hint` : '', invalid ? `${id}-issues` : ''].filter(Boolean).join(' ') || undefined;
  const known = props.options.some((option) => option.value === props.value);
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        disabled={readOnly}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        onChange={(event) => props.onValue(event.currentTarget.value)}
      >
        {/* A value the draft holds but no option names (a step since removed) stays visible until changed. */}
        {!known && <option value={props.value}>{props.value === '' ? 'Choose…' : `${props.value} (not in this form)`}</option>}
        {props.options.map((option) => (
          <option key={option.value} value={option.value} lang={option.lang}>
            {option.label}
          </option>
        ))}
      </select>
      {props.hint && (
        <p class="muted hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      <FieldIssues id={`${id}-issues`} error={error} pointer={props.pointer} exact />
    </div>
  );
}
