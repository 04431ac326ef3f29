import { useEffect } from 'preact/hooks';
import type { Analytics } from '../../client/schemas.js';
import { unwrap } from '../api.js';
import { AnalyticsSummary } from '../components/AnalyticsSummary.js';
import { DailySubmissionsChart } from '../components/DailySubmissionsChart.js';
import { FormPicker } from '../components/FormPicker.js';
import { FunnelChart } from '../components/FunnelChart.js';
import { GradeDistribution } from '../components/GradeDistribution.js';
import { Loading } from '../components/Loading.js';
import { ProblemNotice } from '../components/ProblemNotice.js';
import { TextField } from '../components/TextField.js';
import { UtmSourcesTable } from '../components/UtmSourcesTable.js';
import { loadForms } from '../load-forms.js';
import { route, setQuery } from '../router.js';
import { api } from '../state.js';
import { useResource } from '../use-resource.js';

/**
 * A form's funnel over a range of days (`getAnalytics`): the figures are the API's, as it returns them. The form and
 * the days are in the address (`?form_id=…&from=…&to=…`); without days the API's default range (the last 30) shows.
 */
export function AnalyticsScreen() {
  const params = route.value.query;
  const formId = params.get('form_id') ?? '';
  const from = params.get('from') ?? '';
  const to = params.get('to') ?? '';
  const forms = useResource(loadForms, 'forms');
  const firstForm = forms.data?.[0]?.id;
  // Without a chosen form, the newest one: analytics are always of one form.
  useEffect(() => {
    if (formId === '' && firstForm) change({ form_id: firstForm });
  }, [formId, firstForm]);
  const analytics = useResource<Analytics | undefined>(async () => {
    if (formId === '') return undefined;
    const query = { form_id: formId, ...(from && { from }), ...(to && { to }) };
    const { request_id: _requestId, ...figures } = unwrap(await api().GET('/analytics', { params: { query } }));
    return figures;
  }, `${formId}|${from}|${to}`);

  function change(next: { form_id?: string; from?: string; to?: string }) {
    const query = new URLSearchParams(route.value.query);
    for (const [name, value] of Object.entries(next)) {
      if (value) query.set(name, value);
      else query.delete(name);
    }
    setQuery(query);
  }

  const figures = analytics.data;
  return (
    <section aria-labelledby="analytics-heading" class="analytics">
      <h1 id="analytics-heading">Analytics</h1>
      <ProblemNotice error={forms.error} onRetry={forms.reload} />
      {forms.data?.length === 0 && <p>No forms yet: analytics appear once a form has submissions.</p>}
      <form class="analytics-filters" aria-label="Analytics range" onSubmit={(event) => event.preventDefault()}>
        <FormPicker
          id="analytics-form"
          label="Form"
          forms={forms.data ?? []}
          value={formId}
          onChange={(id) => change({ form_id: id })}
          error={analytics.error}
          pointer="/form_id"
        />
        <TextField
          id="analytics-from"
          label="From (UTC day)"
          type="date"
          value={from || figures?.from || ''}
          onInput={(value) => change({ from: value })}
          error={analytics.error}
          pointer="/from"
        />
        <TextField
          id="analytics-to"
          label="To (UTC day, included)"
          type="date"
          value={to || figures?.to || ''}
          onInput={(value) => change({ to: value })}
          error={analytics.error}
          pointer="/to"
        />
      </form>
      <ProblemNotice error={analytics.error} onRetry={analytics.reload} />
      {figures === undefined ? (
        analytics.loading && formId !== '' && <Loading what="analytics" />
      ) : (
        <div aria-busy={analytics.loading} class="analytics-figures">
          <p class="muted">
            {figures.test ? 'Test' : 'Live'} submissions created from {figures.from} to {figures.to} (UTC days, both included).
          </p>
          <section aria-labelledby="summary-heading">
            <h2 id="summary-heading">Summary</h2>
            <AnalyticsSummary analytics={figures} />
          </section>
          <div class="grid two">
            <section aria-labelledby="funnel-heading">
              <h2 id="funnel-heading">Funnel</h2>
              <FunnelChart analytics={figures} />
            </section>
            <section aria-labelledby="grades-heading">
              <h2 id="grades-heading">Grades</h2>
              <GradeDistribution grades={figures.score.grades} />
            </section>
          </div>
          <section aria-labelledby="daily-heading">
            <h2 id="daily-heading">Submissions per day</h2>
            <DailySubmissionsChart daily={figures.daily} />
          </section>
          <section aria-labelledby="sources-heading">
            <h2 id="sources-heading">Sources</h2>
            <UtmSourcesTable sources={figures.utm_sources} />
          </section>
        </div>
      )}
    </section>
  );
}
