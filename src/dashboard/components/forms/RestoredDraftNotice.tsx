import type { Form } from '../../../client/schemas.js';
import { ConfirmButton } from '../ConfirmButton.js';
import { ChangedParts } from './ChangedParts.js';

/**
 * The builder reopened a draft this tab kept (after leaving the screen, a reload or a new sign-in): it says so, and
 * offers to discard it (taking the form as it is now). When the form changed meanwhile (`now` is newer than
 * `opened`, the version the draft was made to), it says so and what changed; publishing the draft then gets a 412.
 */
export function RestoredDraftNotice(props: { opened: Form | undefined; now: Form | undefined; onDiscard: () => void }) {
  const { opened, now } = props;
  const movedOn = opened !== undefined && now !== undefined && now.version !== opened.version;
  return (
    <div class="notice">
      <p role="status">
        Restored your unpublished changes from this tab.
        {movedOn && ` They were made to version ${opened.version}, and the form has changed since.`}
      </p>
      {movedOn && <ChangedParts opened={opened} latest={now} />}
      <ConfirmButton label="Discard them" confirm="Discard your unpublished changes?" onConfirm={props.onDiscard} />
    </div>
  );
}
