import { hasIssueAt, idAt, useBuilder } from '../../forms/builder-context.js';
import { FieldIssues } from '../FieldIssues.js';

/**
 * A labelled text input for one string of the draft, its id made from the value's JSON pointer; the API's issues
 * about that value are shown under it, and it is marked invalid while there are any. Read-only for a viewer.
 */
export function DraftText(props: {
  pointer: string;
  label: string;
  value: string | undefined;
  onValue: (value: string) => void;
  hint?: string;
  type?: 'text' | 'date' | 'color' | 'url';
  multiline?: boolean;
}) {
  const { error, readOnly } = useBuilder();
  const id = idAt(props.pointer);
  const invalid = hasIssueAt(error, props.pointer);
  const describedBy = [props.hint ? `${id}-hint` : '', invalid ? `${id}-issues` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    value: props.value ?? '',
    readOnly,
    disabled: readOnly && props.type === 'color',
    'aria-invalid': invalid || undefined,
    'aria-describedby': describedBy,
    onInput: (event: Event) => props.onValue((event.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.multiline ? <textarea {...common} rows={2} /> : <input {...common} type={(props.type ?? 'text') as 'text'} />}
      {props.hint && (
        <p class="muted hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      <FieldIssues id={`${id}-issues`} error={error} pointer={props.pointer} exact />
    </div>
  );
}
