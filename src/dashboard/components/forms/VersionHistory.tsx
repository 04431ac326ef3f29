import { useState } from 'preact/hooks';
import { unwrap } from '../../api.js';
import { api } from '../../state.js';
import { useResource } from '../../use-resource.js';
import { Loading } from '../Loading.js';
import { Pager } from '../Pager.js';
import { ProblemNotice } from '../ProblemNotice.js';
import { VersionTable } from './VersionTable.js';

const pageSize = 10;

/** Loads a form's versions (a page at a time, again whenever the form's version changes) for VersionTable. */
export function VersionHistory(props: { formId: string; current: number; onRestore?: (version: number) => Promise<void> }) {
  const [cursor, setCursor] = useState<{ starting_after?: string; ending_before?: string }>({});
  const versions = useResource(
    async () =>
      unwrap(await api().GET('/forms/{id}/versions', { params: { path: { id: props.formId }, query: { limit: pageSize, ...cursor } } })),
    `${props.formId}:${props.current}:${JSON.stringify(cursor)}`,
  );
  const list = versions.data;
  return (
    <section aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      <p class="muted">
        Every change published is a version. Restoring one publishes its steps, logic and scoring again, as a new version.
      </p>
      <ProblemNotice error={versions.error} onRetry={versions.reload} />
      {!list && versions.loading && <Loading what="versions" />}
      {list && <VersionTable versions={list.data} current={props.current} onRestore={props.onRestore} />}
      {list && (
        <Pager
          label="Versions pages"
          hasPrevious={cursor.starting_after !== undefined || (cursor.ending_before !== undefined && list.has_more)}
          hasNext={cursor.ending_before !== undefined || list.has_more}
          onPrevious={() => setCursor({ ending_before: list.data[0]?.id })}
          onNext={() => setCursor({ starting_after: list.data.at(-1)?.id })}
        />
      )}
    </section>
  );
}
