import { issuesUnder } from '../api.js';

/**
 * The API's `details.errors` for one field, shown under it: the issues whose JSON pointer names it or, unless `exact`
 * (a group whose inputs show their own), a value inside it. The field points at this element with
 * `aria-describedby={id}` so that a screen reader reads them with the field.
 */
export function FieldIssues(props: { id: string; error: unknown; pointer: string; exact?: boolean }) {
  const issues = issuesUnder(props.error, props.pointer)
    .filter((issue) => !props.exact || issue.pointer === props.pointer)
    .map((issue) => issue.message);
  if (issues.length === 0) return null;
  return (
    <ul class="field-issues" id={props.id}>
      {issues.map((issue) => (
        <li key={issue}>{issue}</li>
      ))}
    </ul>
  );
}
