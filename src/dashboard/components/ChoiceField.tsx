import { FieldIssues } from './FieldIssues.js';

/** A labelled select of the values a field takes, with the API's issues at `pointer` under it, read with it. */
export function ChoiceField<Value extends string>(props: {
  id: string;
  label: string;
  value: Value;
  options: ReadonlyArray<{ value: Value; label: string }>;
  onChange: (value: Value) => void;
  error: unknown;
  pointer: string;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.value}
        aria-describedby={`${props.id}-issues`}
        onChange={(event) => props.onChange(event.currentTarget.value as Value)}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <FieldIssues id={`${props.id}-issues`} error={props.error} pointer={props.pointer} />
    </div>
  );
}
