import type { ApiKey } from '../../client/schemas.js';

/** What a key reaches: the whole workspace, one form or one folder (by id). */
export function KeyAttachment(props: { attachment: ApiKey['attachment'] }) {
  const { attachment } = props;
  if (attachment.type === 'form') {
    return (
      <>
        Form <code>{attachment.form_id}</code>
      </>
    );
  }
  if (attachment.type === 'folder') {
    return (
      <>
        Folder <code>{attachment.folder_id}</code>
      </>
    );
  }
  return <>Whole workspace</>;
}
