import { useState } from 'preact/hooks';
import { uniqueId } from './TextField.js';

/**
 * One filter a list operation offers (a status, a type), as a labelled select whose first choice is "any" (empty:
 * no filter). `options` are values with their words; a value shows as itself when it has none.
 */
export function SelectFilter(props: {
  label: string;
  anyLabel: string;
  value: string;
  options: ReadonlyArray<string | { value: string; label: string }>;
  onChange: (value: string) => void;
}) {
  const [id] = useState(() => uniqueId('filter'));
  return (
    <div class="filter">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(event) => props.onChange(event.currentTarget.value)}>
        <option value="">{props.anyLabel}</option>
        {props.options.map((option) => {
          const { value, label } = typeof option === 'string' ? { value: option, label: option } : option;
          return (
            <option key={value} value={value}>
              {label}
            </option>
          );
        })}
      </select>
    </div>
  );
}
