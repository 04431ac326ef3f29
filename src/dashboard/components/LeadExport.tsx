import { useState } from 'preact/hooks';
import { ProblemNotice } from './ProblemNotice.js';

export type ExportFormat = 'csv' | 'ndjson';

/**
 * Downloads every lead the filters match (`GET /v1/submissions/export`), not just this page: CSV (one column per
 * field of the form, so a form must be chosen) or NDJSON (one submission per line, any filter).
 */
export function LeadExport(props: { formChosen: boolean; onExport: (format: ExportFormat) => Promise<string> }) {
  const [busy, setBusy] = useState<ExportFormat | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const run = async (format: ExportFormat) => {
    setBusy(format);
    setError(undefined);
    setSaved(undefined);
    try {
      setSaved(await props.onExport(format));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <section class="lead-export" aria-labelledby="export-heading">
      <h2 id="export-heading">Export</h2>
      <p class="muted" id="export-hint">
        Every lead that matches the filters, in their order.
        {props.formChosen ? '' : ' CSV needs a form: its columns are the form’s fields.'}
      </p>
      <div class="actions">
        <button type="button" disabled={!props.formChosen || busy !== undefined} aria-describedby="export-hint" onClick={() => run('csv')}>
          Download CSV
        </button>
        <button type="button" disabled={busy !== undefined} onClick={() => run('ndjson')}>
          Download NDJSON
        </button>
      </div>
      <p role="status">{busy ? `Preparing the ${busy.toUpperCase()} download…` : saved ? `Downloaded ${saved}.` : ''}</p>
      <ProblemNotice error={error} />
    </section>
  );
}
