import type { FormSummary } from '../../client/schemas.js';
import { FieldIssues } from './FieldIssues.js';

/**
 * A form, chosen from the workspace's forms (`listForms`), by name; `anyLabel` offers "no form" as the first choice
 * (every form's leads), without it a form must be chosen. The API's issues at `pointer` are shown under it.
 */
export function FormPicker(props: {
  id: string;
  label: string;
  forms: FormSummary[];
  value: string;
  onChange: (formId: string) => void;
  anyLabel?: string;
  error?: unknown;
  pointer?: string;
}) {
  const issuesId = `${props.id}-issues`;
  const known = props.value === '' || props.forms.some((form) => form.id === props.value);
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.value}
        aria-describedby={props.pointer ? issuesId : undefined}
        onChange={(event) => props.onChange((event.currentTarget as HTMLSelectElement).value)}
      >
        {props.anyLabel !== undefined && <option value="">{props.anyLabel}</option>}
        {/* A form the list does not hold (an address from elsewhere) stays chosen, by its id, for the API to judge. */}
        {!known && <option value={props.value}>{props.value}</option>}
        {props.forms.map((form) => (
          <option key={form.id} value={form.id}>
            {form.name}
          </option>
        ))}
      </select>
      {props.pointer !== undefined && <FieldIssues id={issuesId} error={props.error} pointer={props.pointer} />}
    </div>
  );
}
