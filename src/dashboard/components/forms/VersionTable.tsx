import type { FormVersionSummary } from '../../../client/schemas.js';
import { formatDateTime } from '../../format.js';
import { ConfirmButton } from '../ConfirmButton.js';
import { TableScroller } from '../TableScroller.js';

/** A form's published versions, newest first, each restorable (as a new version) by someone who may edit. */
export function VersionTable(props: {
  versions: readonly FormVersionSummary[];
  current: number;
  onRestore?: (version: number) => Promise<void>;
}) {
  return (
    <TableScroller label="Published versions">
      <table>
        <caption class="visually-hidden">Published versions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Published</th>
            <th scope="col">Name</th>
            <th scope="col" class="number">
              Steps
            </th>
            <th scope="col" class="number">
              Fields
            </th>
            <th scope="col" class="number">
              Logic rules
            </th>
            {props.onRestore && <th scope="col">Restore</th>}
          </tr>
        </thead>
        <tbody>
          {props.versions.map((version) => (
            <tr key={version.id}>
              <th scope="row">
                Version {version.version}
                {version.version === props.current && <span class="muted"> (current)</span>}
              </th>
              <td>{formatDateTime(version.created_at)}</td>
              <td>{version.name}</td>
              <td class="number">{version.step_count}</td>
              <td class="number">{version.field_count}</td>
              <td class="number">{version.logic_rule_count}</td>
              {props.onRestore && (
                <td>
                  {version.version !== props.current && (
                    <ConfirmButton
                      label={`Restore version ${version.version}`}
                      confirm={`Publish version ${version.version}'s definition as a new version? Unpublished edits are replaced.`}
                      onConfirm={() => props.onRestore?.(version.version)}
                    />
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroller>
  );
}
