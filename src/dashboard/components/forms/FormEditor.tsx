import { useEffect, useRef, useState } from 'preact/hooks';
import { entityTagOf } from '../../../client/if-match.js';
import type { Form } from '../../../client/schemas.js';
import { FormFunnelError, unwrap } from '../../api.js';
import { formatDateTime } from '../../format.js';
import { focusSoon } from '../../forms/builder-context.js';
import { createBodyOf, differingParts, type FormDraft, formParts, newFormDraft, updateBodyOf } from '../../forms/draft.js';
import { allFolders } from '../../forms/folders.js';
import { navigate } from '../../router.js';
import { api, canEdit, dashboard, environment, isAdmin } from '../../state.js';
import { useResource } from '../../use-resource.js';
import { Link } from '../Link.js';
import { Loading } from '../Loading.js';
import { ProblemNotice } from '../ProblemNotice.js';
import { ChangedParts } from './ChangedParts.js';
import { FormBuilder } from './FormBuilder.js';
import { IssueSummary } from './IssueSummary.js';
import { TransferPanel } from './TransferPanel.js';
import { VersionHistory } from './VersionHistory.js';

/** A form as read, with the `ETag` of that state, which a write sends in `If-Match`. */
interface Opened {
  form: Form;
  etag: string;
}

type Written = { data?: unknown; error?: unknown; response: Response };
const opened = (result: Written): Opened => ({ form: unwrap(result) as Form, etag: entityTagOf(result) ?? '' });

async function read(id: string): Promise<Opened> {
  return opened(await api().GET('/forms/{id}', { params: { path: { id } } }));
}

/**
 * The builder's data: the form as opened (getForm, with its ETag) and the draft being edited, which the person
 * publishes with `createForm` (a new form) or `updateForm` with `If-Match` (only the parts that changed), and
 * versions restored with `restoreFormVersion`. A refused write keeps the draft as it was: its issues are shown at
 * the inputs they name; after a 412 the form as it is now is read to show what changed, and Reload takes it.
 */
export function FormEditor(props: { formId: string | undefined; folderId: string | null }) {
  const readOnly = !canEdit();
  const [base, setBase] = useState<Opened | undefined>();
  const [draft, setDraft] = useState<FormDraft | undefined>(() => (props.formId ? undefined : newFormDraft(props.folderId)));
  const [loadError, setLoadError] = useState<unknown>();
  const [error, setError] = useState<unknown>();
  const [latest, setLatest] = useState<Opened | undefined>();
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const folders = useResource(allFolders, 'folders');
  // What the latest render shows, for writes that finish after the person went on editing.
  const current = useRef({ base, draft });
  current.current = { base, draft };

  const open = (form: Opened) => {
    current.current = { base: form, draft: form.form };
    setBase(form);
    setDraft(form.form);
    setError(undefined);
    setLatest(undefined);
  };

  useEffect(() => {
    if (props.formId === undefined) {
      if (current.current.base) {
        setBase(undefined);
        setDraft(newFormDraft(props.folderId));
        setError(undefined);
      }
      return;
    }
    // Just created here: the form is already open.
    if (current.current.base?.form.id === props.formId) return;
    setLoadError(undefined);
    read(props.formId).then(open, setLoadError);
  }, [props.formId]);

  // Closing or reloading the tab with unpublished edits asks first (the browser's own question).
  const unpublished = base && draft ? differingParts(base.form, draft) : [];
  const hasUnpublished = unpublished.length > 0 || (!base && draft !== undefined && draft.name !== '');
  useEffect(() => {
    if (!hasUnpublished || readOnly) return;
    const ask = (event: BeforeUnloadEvent) => event.preventDefault();
    addEventListener('beforeunload', ask);
    return () => removeEventListener('beforeunload', ask);
  }, [hasUnpublished, readOnly]);

  const refused = (caught: unknown) => {
    setError(caught);
    setStatus('');
    const id = current.current.base?.form.id;
    if (caught instanceof FormFunnelError && caught.status === 412 && id) read(id).then(setLatest, () => undefined);
    focusSoon('builder-problem');
  };

  async function publish() {
    const { base: from, draft: sent } = current.current;
    if (!sent) return;
    setBusy(true);
    setStatus('');
    try {
      if (!from) {
        const created = opened(await api().POST('/forms', { body: createBodyOf(sent) }));
        open(created);
        setStatus(`Published version ${created.form.version}.`);
        navigate(`forms/${created.form.id}`, { replace: true });
        return;
      }
      const body = updateBodyOf(from.form, sent);
      if (!body) {
        setError(undefined);
        setStatus(`Nothing to publish: nothing changed since version ${from.form.version}.`);
        return;
      }
      const updated = opened(
        await api().PATCH('/forms/{id}', { params: { path: { id: from.form.id }, header: { 'If-Match': from.etag } }, body }),
      );
      // Edits made while the request was out stay in the draft.
      if (current.current.draft === sent) open(updated);
      else {
        setBase(updated);
        setError(undefined);
      }
      setStatus(`Published version ${updated.form.version}.`);
    } catch (caught) {
      refused(caught);
    } finally {
      setBusy(false);
    }
  }

  async function restore(version: number) {
    const from = current.current.base;
    if (!from) return;
    setStatus('');
    try {
      const restored = opened(
        await api().POST('/forms/{id}/versions/{version}/restore', {
          params: { path: { id: from.form.id, version }, header: { 'If-Match': from.etag } },
        }),
      );
      open(restored);
      setStatus(`Version ${version} restored as version ${restored.form.version}.`);
    } catch (caught) {
      refused(caught);
    }
  }

  async function reload() {
    const id = current.current.base?.form.id;
    if (!id) return;
    try {
      const now = latest ?? (await read(id));
      open(now);
      setStatus(`Reloaded: version ${now.form.version}.`);
    } catch (caught) {
      setError(caught);
    }
  }

  const back = <Link to={props.folderId ? `forms?folder=${encodeURIComponent(props.folderId)}` : 'forms'}>All forms</Link>;
  if (props.formId === undefined && readOnly) {
    return (
      <section aria-labelledby="builder-heading">
        <p>{back}</p>
        <h1 id="builder-heading">New form</h1>
        <p>Your role can read forms but not create them.</p>
      </section>
    );
  }
  if (!draft) {
    return (
      <section aria-labelledby="builder-heading">
        <p>{back}</p>
        <h1 id="builder-heading">Form</h1>
        {loadError ? (
          <ProblemNotice error={loadError} onRetry={() => props.formId && read(props.formId).then(open, setLoadError)} />
        ) : (
          <Loading what="the form" />
        )}
      </section>
    );
  }
  const stale = error instanceof FormFunnelError && error.status === 412;
  return (
    <section aria-labelledby="builder-heading" class="form-editor">
      <p>{back}</p>
      <h1 id="builder-heading">{base ? base.form.name : 'New form'}</h1>
      {base && (
        <p class="muted">
          Published, version {base.form.version}, updated {formatDateTime(base.form.updated_at)}
          {base.form.test ? ' · test form' : ''}
        </p>
      )}
      {readOnly && <p class="notice">You can read this form; your role cannot change it.</p>}
      <div id="builder-problem" tabIndex={-1}>
        <ProblemNotice error={error} onReload={stale ? reload : undefined} />
        {stale && base && latest && <ChangedParts opened={base.form} latest={latest.form} />}
        <IssueSummary error={error} />
      </div>
      <FormBuilder
        draft={draft}
        onDraft={setDraft}
        folders={folders.data ?? []}
        isNew={!base}
        error={error}
        readOnly={readOnly}
        previewStylesheet={dashboard().config.previewStylesheet}
      />
      {!readOnly && (
        <div class="publish-bar">
          <button type="button" class="primary" disabled={busy} onClick={publish}>
            {base ? 'Publish changes' : 'Publish'}
          </button>
          <p role="status">{busy ? 'Publishing…' : status}</p>
          <p class="muted">
            {!base
              ? 'Not published yet.'
              : unpublished.length > 0
                ? `Unpublished changes: ${unpublished.map((part) => formParts[part]).join(', ')}.`
                : 'No unpublished changes.'}
          </p>
        </div>
      )}
      {base && <VersionHistory formId={base.form.id} current={base.form.version} onRestore={readOnly ? undefined : restore} />}
      {base && isAdmin() && environment.value === 'live' && !base.form.test && <TransferPanel formId={base.form.id} />}
    </section>
  );
}
