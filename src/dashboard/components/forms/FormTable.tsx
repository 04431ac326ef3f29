import type { Folder, FormSummary } from '../../../client/schemas.js';
import { formatDateTime } from '../../format.js';
import { Link } from '../Link.js';
import { TableScroller } from '../TableScroller.js';

/** The forms as a table: name (to the builder), status and version, folder, last update. */
export function FormTable(props: { forms: readonly FormSummary[]; folders: readonly Folder[]; caption: string }) {
  const folderName = (id: string | null) => (id === null ? '—' : (props.folders.find((folder) => folder.id === id)?.name ?? id));
  if (props.forms.length === 0) return <p class="muted">No forms here yet.</p>;
  return (
    <TableScroller label={props.caption}>
      <table class="form-table">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Folder</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {props.forms.map((form) => (
            <tr key={form.id}>
              <th scope="row">
                <Link to={`forms/${form.id}`}>{form.name}</Link>
                {form.test && <span class="badge">Test</span>}
              </th>
              <td>
                {form.status}, version {form.version}
              </td>
              <td>{folderName(form.folder_id)}</td>
              <td>{formatDateTime(form.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroller>
  );
}
