import { issuesOf, targetOf } from '../../forms/builder-context.js';

/**
 * Every issue of a refused write, each a link to the input (or group) its pointer names, where the same message
 * is shown: a long builder's errors can be found without scrolling through it. The API's messages, as given.
 */
export function IssueSummary(props: { error: unknown }) {
  const issues = issuesOf(props.error);
  if (issues.length === 0) return null;
  return (
    <ul class="issue-summary" aria-label="Issues to fix">
      {issues.map((issue, index) => {
        const target = targetOf(issue.pointer);
        return (
          <li key={index}>
            {target ? (
              <a
                href={`#${target}`}
                onClick={(event) => {
                  event.preventDefault();
                  const element = document.getElementById(target);
                  element?.scrollIntoView({ block: 'center' });
                  element?.focus();
                }}
              >
                {issue.message}
              </a>
            ) : (
              issue.message
            )}{' '}
            <code class="muted">{issue.pointer}</code>
          </li>
        );
      })}
    </ul>
  );
}
