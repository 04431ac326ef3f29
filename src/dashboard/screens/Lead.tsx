import { useState } from 'preact/hooks';
import type { RescoredSubmission, Submission } from '../../client/schemas.js';
import { unwrap } from '../api.js';
import { ConfirmButton } from '../components/ConfirmButton.js';
import { LeadDetail } from '../components/LeadDetail.js';
import { contactOf } from '../components/LeadTable.js';
import { Link } from '../components/Link.js';
import { Loading } from '../components/Loading.js';
import { ProblemNotice } from '../components/ProblemNotice.js';
import { formatNumber } from '../format.js';
import { api, canEdit } from '../state.js';
import { useResource } from '../use-resource.js';

/** The list's address when it was last shown, so "All leads" goes back to the same filters and page. */
let listAddress = '';
export const rememberLeadList = (address: string): void => {
  listAddress = address;
};

/** One lead (`getSubmission`), labelled by the form version that scored it; rescore and delete for editors. */
export function LeadScreen(props: { id: string }) {
  const lead = useResource<Submission>(
    async () => unwrap(await api().GET('/submissions/{id}', { params: { path: { id: props.id } } })),
    props.id,
  );
  const scoredBy = lead.data ? { id: lead.data.form_id, version: lead.data.form_version } : undefined;
  // The version that scored it has the labels; without it (no longer kept) the answers show by ref, and no error.
  const version = useResource(
    async () => (scoredBy ? unwrap(await api().GET('/forms/{id}/versions/{version}', { params: { path: scoredBy } })) : undefined),
    scoredBy ? `${scoredBy.id}@${scoredBy.version}` : '',
  );
  const [rescored, setRescored] = useState<RescoredSubmission | undefined>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [deleted, setDeleted] = useState(false);
  // After a deletion the list starts at its first page: the deleted lead may have been the page's cursor.
  const backQuery = new URLSearchParams(listAddress);
  if (deleted) for (const cursor of ['starting_after', 'ending_before']) backQuery.delete(cursor);
  const backSearch = backQuery.toString();
  const back = (
    <p>
      <Link to={`leads${backSearch ? `?${backSearch}` : ''}`}>All leads</Link>
    </p>
  );

  const rescore = async () => {
    setActionError(undefined);
    try {
      const { request_id: _requestId, ...result } = unwrap(
        await api().POST('/submissions/{id}/rescore', { params: { path: { id: props.id } } }),
      );
      setRescored(result);
      lead.set(result);
    } catch (error) {
      setActionError(error);
    }
  };
  const remove = async () => {
    setActionError(undefined);
    try {
      unwrap(await api().DELETE('/submissions/{id}', { params: { path: { id: props.id } } }));
      setDeleted(true);
    } catch (error) {
      setActionError(error);
    }
  };

  const data = lead.data;
  const title = data ? `Lead ${contactOf(data) ?? data.id}` : 'Lead';
  return (
    <section aria-labelledby="lead-heading" class="lead">
      {back}
      <h1 id="lead-heading">{title}</h1>
      {deleted ? (
        <p role="status">This lead was deleted. It no longer counts in analytics.</p>
      ) : (
        <>
          <ProblemNotice error={lead.error} onRetry={lead.reload} />
          {data === undefined && lead.loading && <Loading what="the lead" />}
          {data && (
            <>
              {canEdit() && (
                <div class="actions">
                  <button type="button" onClick={rescore}>
                    Rescore with the current scoring
                  </button>
                  <ConfirmButton label="Delete this lead" confirm="Delete this lead for good?" onConfirm={remove} />
                </div>
              )}
              <p role="status">
                {rescored &&
                  `Rescored with version ${rescored.form_version}: ` +
                    `score ${formatNumber(rescored.previous_score)} → ${formatNumber(rescored.score)}, ` +
                    `grade ${rescored.previous_grade ?? 'none'} → ${rescored.grade ?? 'none'}.`}
              </p>
              <ProblemNotice error={actionError} />
              <LeadDetail lead={data} version={version.data} />
            </>
          )}
        </>
      )}
    </section>
  );
}
