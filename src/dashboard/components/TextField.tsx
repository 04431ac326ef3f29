import { FieldIssues } from './FieldIssues.js';

let nextId = 0;
/** An id unique on the page, for label and issue associations. */
export const uniqueId = (prefix: string): string => `${prefix}-${++nextId}`;

/**
 * A labelled input whose API issues (`details.errors` at `pointer`) are shown under it and read with it; it is marked
 * invalid while there are any.
 */
export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error?: unknown;
  pointer?: string;
  type?: 'text' | 'email' | 'url' | 'number' | 'search' | 'date';
  required?: boolean;
  hint?: string;
  multiline?: boolean;
}) {
  const issuesId = `${props.id}-issues`;
  const hintId = `${props.id}-hint`;
  const describedBy = [props.hint ? hintId : '', issuesId].filter(Boolean).join(' ');
  const invalid = props.pointer !== undefined && props.error !== undefined;
  const common = {
    id: props.id,
    value: props.value,
    required: props.required,
    'aria-describedby': describedBy,
    onInput: (event: Event) => props.onInput((event.currentTarget as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.hint && (
        <p class="muted" id={hintId}>
          {props.hint}
        </p>
      )}
      {props.multiline ? <textarea {...common} rows={3} /> : <input {...common} type={(props.type ?? 'text') as 'text'} />}
      {props.pointer !== undefined && invalid && <FieldIssues id={issuesId} error={props.error} pointer={props.pointer} />}
    </div>
  );
}
