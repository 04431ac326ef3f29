import { useEffect, useRef, useState } from 'preact/hooks';
import { setFormLogo } from '../../../client/form-logo.js';
import { entityTagOf } from '../../../client/if-match.js';
import type { Form } from '../../../client/schemas.js';
import { FormFunnelError, unwrap } from '../../api.js';
import { formatDateTime } from '../../format.js';
import { focusSoon } from '../../forms/builder-context.js';
import {
  completedDraft,
  createBodyOf,
  differingParts,
  type FormDraft,
  type FormPart,
  formParts,
  newFormDraft,
  updateBodyOf,
} from '../../forms/draft.js';
import { allFolders } from '../../forms/folders.js';
import { findStoredDraft, forgetStoredDraft, type Opened, type StoredDraft, storeDraft } from '../../forms/stored-draft.js';
import { navigate, useLeaveGuard } from '../../router.js';
import { api, canEdit, dashboard, environment, isAdmin } from '../../state.js';
import { useResource } from '../../use-resource.js';
import { Link } from '../Link.js';
import { Loading } from '../Loading.js';
import { ProblemNotice } from '../ProblemNotice.js';
import { ChangedParts } from './ChangedParts.js';
import { FormBuilder } from './FormBuilder.js';
import { IssueSummary } from './IssueSummary.js';
import { LogoSection } from './LogoSection.js';
import { RestoredDraftNotice } from './RestoredDraftNotice.js';
import { TransferPanel } from './TransferPanel.js';
import { VersionHistory } from './VersionHistory.js';

type Written = { data?: unknown; error?: unknown; response: Response };
const opened = (result: Written): Opened => ({ form: unwrap(result) as Form, etag: entityTagOf(result) });

/**
 * The `If-Match` of a write based on `from`. A read without an `ETag` cannot be written safely: an update without the
 * precondition would overwrite whatever someone else published meanwhile, so the write is not sent.
 */
function precondition(from: Opened): { 'If-Match': string } {
  if (from.etag === undefined) {
    throw new Error(
      'The form was read without its ETag, so publishing could overwrite a change made meanwhile without telling you. ' +
        'Reload the page to read it again; your changes are kept in this tab.',
    );
  }
  return { 'If-Match': from.etag };
}

/** The parts a draft changes: of the form it was opened from, or, for a new form, of an empty new form. */
const changedParts = (base: Opened | undefined, draft: FormDraft | undefined, folderId: string | null): FormPart[] =>
  draft ? differingParts(base ? base.form : newFormDraft(folderId), draft) : [];

/** A new form's draft: the one this tab kept, or an empty one. */
const keptOrNew = (kept: StoredDraft | undefined, folderId: string | null): FormDraft =>
  kept ? completedDraft(kept.draft, newFormDraft(folderId)) : newFormDraft(folderId);

async function read(id: string): Promise<Opened> {
  return opened(await api().GET('/forms/{id}', { params: { path: { id } } }));
}

/**
 * The builder's data: the form as opened (getForm, with its ETag) and the draft being edited, which the person
 * publishes with `createForm` (a new form) or `updateForm` with `If-Match` (only the parts that changed), and
 * versions restored with `restoreFormVersion`. A refused write keeps the draft as it was: its issues are shown at
 * the inputs they name; after a 412 the form as it is now is read to show what changed, and Reload takes it.
 *
 * Unpublished changes are not lost by leaving: leaving the builder inside the dashboard (a link, Back) or closing the
 * tab asks first, and the draft is kept in this tab (stored-draft.ts) and restored when the form opens again.
 */
export function FormEditor(props: { formId: string | undefined; folderId: string | null }) {
  const readOnly = !canEdit();
  const [keptNew] = useState(() => (props.formId || readOnly ? undefined : findStoredDraft(undefined)));
  const [base, setBase] = useState<Opened | undefined>();
  const [draft, setDraft] = useState<FormDraft | undefined>(() => (props.formId ? undefined : keptOrNew(keptNew, props.folderId)));
  const [restored, setRestored] = useState(keptNew !== undefined);
  const [loadError, setLoadError] = useState<unknown>();
  const [error, setError] = useState<unknown>();
  const [latest, setLatest] = useState<Opened | undefined>();
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const folders = useResource(allFolders, 'folders');
  // What the latest render shows, for writes that finish after the person went on editing.
  const current = useRef({ base, draft });
  current.current = { base, draft };

  /** Shows `next` (the form as opened, or a kept draft) based on `from`; `now` is the form as read, if newer. */
  const show = (from: Opened | undefined, next: FormDraft, options: { now?: Opened; restored?: boolean } = {}) => {
    current.current = { base: from, draft: next };
    setBase(from);
    setDraft(next);
    setError(undefined);
    setLatest(options.now);
    setRestored(options.restored ?? false);
  };
  const open = (form: Opened) => show(form, form.form);

  /** The form as read, or the draft of it this tab kept (based on the version it was made to). */
  const startFrom = (form: Opened) => {
    const kept = readOnly ? undefined : findStoredDraft(form.form.id);
    const from = kept?.base && kept.base.form.version !== form.form.version ? kept.base : form;
    const draft = kept && completedDraft(kept.draft, from.form);
    if (!draft || changedParts(from, draft, null).length === 0) return open(form);
    show(from, draft, { now: from === form ? undefined : form, restored: true });
  };

  useEffect(() => {
    if (props.formId === undefined) {
      if (current.current.base) {
        const kept = readOnly ? undefined : findStoredDraft(undefined);
        show(undefined, keptOrNew(kept, props.folderId), { restored: kept !== undefined });
      }
      return;
    }
    // Just created here: the form is already open.
    if (current.current.base?.form.id === props.formId) return;
    setLoadError(undefined);
    read(props.formId).then(startFrom, setLoadError);
  }, [props.formId]);

  const unpublished = changedParts(base, draft, props.folderId);
  const hasUnpublished = !readOnly && unpublished.length > 0;

  // While there are unpublished changes, this tab keeps them (until published or discarded).
  const [keeping, setKeeping] = useState(true);
  useEffect(() => {
    if (readOnly || !draft || (props.formId !== undefined && !base)) return;
    if (hasUnpublished) setKeeping(storeDraft({ base, draft }));
    else forgetStoredDraft(base);
  }, [base, draft, hasUnpublished]);

  // Leaving the builder with unpublished changes asks first: inside the dashboard, and closing or reloading the tab.
  useLeaveGuard(
    () => !readOnly && changedParts(current.current.base, current.current.draft, props.folderId).length > 0,
    keeping
      ? 'This form has unpublished changes. Leave the builder? They are kept in this tab until you publish or discard them.'
      : 'This form has unpublished changes, which this browser cannot keep. Leave the builder and lose them?',
  );
  useEffect(() => {
    if (!hasUnpublished) return;
    const ask = (event: BeforeUnloadEvent) => event.preventDefault();
    addEventListener('beforeunload', ask);
    return () => removeEventListener('beforeunload', ask);
  }, [hasUnpublished]);

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
        forgetStoredDraft(undefined);
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
        await api().PATCH('/forms/{id}', { params: { path: { id: from.form.id }, header: precondition(from) }, body }),
      );
      forgetStoredDraft(from);
      // Edits made while the request was out stay in the draft (and are kept again, as changes to the new version).
      if (current.current.draft === sent) open(updated);
      else {
        current.current = { ...current.current, base: updated };
        setBase(updated);
        setError(undefined);
        setLatest(undefined);
        setRestored(false);
      }
      setStatus(`Published version ${updated.form.version}.`);
    } catch (caught) {
      refused(caught);
    } finally {
      setBusy(false);
    }
  }

  /**
   * Sets or removes the logo (setFormLogo, deleteFormLogo), apart from the draft: the form as the API returns it
   * becomes the draft's base, with its new version and ETag, and the draft's unpublished changes stay.
   */
  async function changeLogo(file: File | undefined): Promise<Form> {
    const from = current.current.base;
    if (!from) throw new Error('A form gets a logo once it is published.');
    const header = precondition(from);
    const id = from.form.id;
    const updated = opened(
      file ? await setFormLogo(api(), id, file, { header }) : await api().DELETE('/forms/{id}/logo', { params: { path: { id }, header } }),
    );
    // Only the base moves: the draft, its issues and what it was restored from stay as they were.
    if (current.current.base === from) {
      current.current = { ...current.current, base: updated };
      setBase(updated);
    }
    return updated.form;
  }

  async function restore(version: number) {
    const from = current.current.base;
    if (!from) return;
    setStatus('');
    try {
      const restored = opened(
        await api().POST('/forms/{id}/versions/{version}/restore', {
          params: { path: { id: from.form.id, version }, header: precondition(from) },
        }),
      );
      forgetStoredDraft(from);
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
      forgetStoredDraft(current.current.base);
      open(now);
      setStatus(`Reloaded: version ${now.form.version}.`);
    } catch (caught) {
      setError(caught);
    }
  }

  /** Drops the kept draft and takes the form as it is now (or an empty new form). */
  function discard() {
    const { base: from } = current.current;
    forgetStoredDraft(from);
    const now = latest ?? from;
    if (now) open(now);
    else show(undefined, newFormDraft(props.folderId));
    setStatus('Discarded your unpublished changes.');
    focusSoon('builder-problem');
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
          <ProblemNotice error={loadError} onRetry={() => props.formId && read(props.formId).then(startFrom, setLoadError)} />
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
        {restored && !readOnly && <RestoredDraftNotice opened={base?.form} now={stale ? undefined : latest?.form} onDiscard={discard} />}
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
        logo={base?.form.logo}
      >
        <LogoSection
          logo={base?.form.logo}
          formId={base?.form.id}
          readOnly={readOnly}
          onUpload={changeLogo}
          onRemove={() => changeLogo(undefined)}
          onReload={reload}
        />
      </FormBuilder>
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
