import type { Form } from '../../../client/schemas.js';
import { formatDateTime } from '../../format.js';
import { differingParts, formParts } from '../../forms/draft.js';

/**
 * After a 412, what someone else changed: the parts of the form as it is now that differ from the version the draft
 * started from, and who wins is the person's choice (Reload takes theirs; until then the draft stays).
 */
export function ChangedParts(props: { opened: Form; latest: Form }) {
  const parts = differingParts(props.opened, props.latest);
  // The logo is no part of a draft, but someone else may have changed it too.
  const logoChanged = props.opened.logo?.url !== props.latest.logo?.url;
  const changed = parts.length > 0 || logoChanged;
  return (
    <div class="changed-parts">
      <p>
        The form is at version {props.latest.version} (you opened version {props.opened.version}), changed{' '}
        {formatDateTime(props.latest.updated_at)}.
        {changed ? ' Changed since you opened it:' : ' Its definition is the same as when you opened it.'}
      </p>
      {changed && (
        <ul aria-label="Changed since you opened it">
          {parts.map((part) => (
            <li key={part}>
              {formParts[part]}
              {(part === 'name' || part === 'slug') && `: now “${props.latest[part]}” (was “${props.opened[part]}”)`}
            </li>
          ))}
          {logoChanged && <li>Logo</li>}
        </ul>
      )}
    </div>
  );
}
