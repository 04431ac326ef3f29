import { useEffect, useRef, useState } from 'preact/hooks';
import { waitForRescoreJob } from '../../client/rescore-jobs.js';
import type { RescoreJob, SubmissionListQuery } from '../../client/schemas.js';
import { unwrap } from '../api.js';
import { EraseLeadForm } from '../components/EraseLeadForm.js';
import { LeadExport } from '../components/LeadExport.js';
import { LeadFilters } from '../components/LeadFilters.js';
import { LeadTable } from '../components/LeadTable.js';
import { Loading } from '../components/Loading.js';
import { Pager } from '../components/Pager.js';
import { ProblemNotice } from '../components/ProblemNotice.js';
import { RescoreJobProgress } from '../components/RescoreJobProgress.js';
import { filenameOf, saveFile } from '../download.js';
import { filterOf, leadQueryOf, searchParamsOf } from '../lead-filter.js';
import { loadForms } from '../load-forms.js';
import { route, setQuery } from '../router.js';
import { api, canEdit, isAdmin } from '../state.js';
import { useResource } from '../use-resource.js';
import { LeadScreen, rememberLeadList } from './Lead.js';

/** `/dashboard/leads` lists leads; `/dashboard/leads/<id>` shows one. */
export function LeadsScreen() {
  const id = route.value.segments[1];
  return id ? <LeadScreen id={id} /> : <LeadList />;
}

/** How often a bulk rescore's progress is read; the contract asks for every few seconds. */
const rescorePollMs = 2000;

function LeadList() {
  const query = leadQueryOf(route.value.query);
  const address = searchParamsOf(query).toString();
  rememberLeadList(address);
  const forms = useResource(loadForms, 'forms');
  const formId = query.form_id ?? '';
  const form = useResource(
    async () => (formId ? unwrap(await api().GET('/forms/{id}', { params: { path: { id: formId } } })) : undefined),
    formId,
  );
  const list = useResource(async () => unwrap(await api().GET('/submissions', { params: { query } })), address);
  const [job, setJob] = useState<RescoreJob | undefined>(undefined);
  const [rescoreError, setRescoreError] = useState<unknown>(undefined);
  const polling = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => polling.current?.abort(), []);

  const apply = (next: SubmissionListQuery) => setQuery(searchParamsOf(next));
  const page = (cursor: Pick<SubmissionListQuery, 'starting_after' | 'ending_before'>) =>
    apply({ ...filterOf(query), ...(query.limit !== undefined && { limit: query.limit }), ...cursor });

  const rescoreForm = async () => {
    setRescoreError(undefined);
    polling.current?.abort();
    const controller = new AbortController();
    polling.current = controller;
    try {
      const { request_id: _requestId, ...started } = unwrap(await api().POST('/forms/{id}/rescore', { params: { path: { id: formId } } }));
      setJob(started);
      const ended = await waitForRescoreJob(api(), started.id, {
        intervalMs: rescorePollMs,
        signal: controller.signal,
        onProgress: setJob,
      });
      if (ended.status === 'succeeded') list.reload();
    } catch (error) {
      if (!controller.signal.aborted) setRescoreError(error);
    }
  };

  const exportLeads = async (format: 'csv' | 'ndjson'): Promise<string> => {
    const result = await api().GET('/submissions/export', { params: { query: { ...filterOf(query), format } }, parseAs: 'blob' });
    const blob = unwrap(result) as unknown as Blob;
    const filename = filenameOf(result.response.headers.get('Content-Disposition'), `submissions.${format}`);
    saveFile(blob, filename);
    return filename;
  };

  const data = list.data;
  const backwards = query.ending_before !== undefined;
  const formName = forms.data?.find((candidate) => candidate.id === formId)?.name ?? formId;
  return (
    <section aria-labelledby="leads-heading" class="leads">
      <h1 id="leads-heading">Leads</h1>
      <ProblemNotice error={forms.error} onRetry={forms.reload} />
      <LeadFilters
        query={query}
        forms={forms.data ?? []}
        gradeLabels={form.data?.scoring.grades.map((grade) => grade.label)}
        error={list.error}
        onApply={apply}
      />
      {formId !== '' && canEdit() && (
        <section aria-labelledby="rescore-heading" class="lead-rescore">
          <h2 id="rescore-heading">Rescore {formName}</h2>
          <p class="muted">Scores every lead of this form again with its current scoring, in the background.</p>
          <div class="actions">
            <button type="button" disabled={job?.status === 'queued' || job?.status === 'running'} onClick={rescoreForm}>
              Rescore every lead of this form
            </button>
          </div>
          {job && <RescoreJobProgress job={job} />}
          <ProblemNotice error={rescoreError} />
        </section>
      )}
      <h2>Results</h2>
      <ProblemNotice error={list.error} onRetry={list.reload} />
      {data === undefined ? (
        list.loading && <Loading what="leads" />
      ) : (
        <div aria-busy={list.loading}>
          {data.data.length === 0 ? (
            <p>No lead matches these filters.</p>
          ) : (
            <LeadTable leads={data.data} forms={forms.data ?? []} sort={query.sort} />
          )}
          <Pager
            label="Lead pages"
            hasPrevious={backwards ? data.has_more : query.starting_after !== undefined}
            hasNext={backwards ? true : data.has_more}
            onPrevious={() => page({ ending_before: data.data[0]?.id })}
            onNext={() => page({ starting_after: data.data.at(-1)?.id })}
          />
        </div>
      )}
      <LeadExport formChosen={formId !== ''} onExport={exportLeads} />
      {isAdmin() && <EraseLeadForm onErase={async (email) => eraseLeads(email, list.reload)} />}
    </section>
  );
}

async function eraseLeads(email: string, then: () => void) {
  const { request_id: _requestId, ...erasure } = unwrap(await api().POST('/submissions/erase', { body: { email } }));
  then();
  return erasure;
}
