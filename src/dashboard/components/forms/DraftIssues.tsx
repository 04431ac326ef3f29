import { issuesExactlyAt, useBuilder } from '../../forms/builder-context.js';

/**
 * The API's issues about one value of the draft (`details.errors` whose pointer is exactly `pointer`), under its
 * input or at the top of its group. The input names this list in `aria-describedby`, so a screen reader reads both.
 */
export function DraftIssues(props: { id: string; pointer: string }) {
  const issues = issuesExactlyAt(useBuilder().error, props.pointer);
  if (issues.length === 0) return null;
  return (
    <ul class="field-issues" id={props.id}>
      {issues.map((issue) => (
        <li key={issue}>{issue}</li>
      ))}
    </ul>
  );
}
