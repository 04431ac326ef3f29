/**
 * A builder's unpublished draft, kept in this tab's sessionStorage while it differs from what it started from, so that
 * it outlives what replaces the page or the screen: leaving the builder, a reload, the re-authorization after a 401
 * and switching test mode (each a full-page round trip through the consent page). It goes when the draft is
 * published or discarded, and with the tab.
 *
 * One draft per form, keyed by who edits it (workspace, member, environment: another member signing in to this tab,
 * or the other environment, does not see it), the form (`new` for one not created yet) and the version it was opened
 * at. It holds the form as opened with its ETag, so that a draft of a version the form has since moved on from is
 * still published as changes to that version, and the API's 412 says what changed meanwhile.
 */
import type { Form } from '../../client/schemas.js';
import { environment, me } from '../state.js';
import type { FormDraft } from './draft.js';

/** A form as read, with the `ETag` of that state (none if the response carried none). */
export interface Opened {
  form: Form;
  etag: string | undefined;
}

export interface StoredDraft {
  /** The form the draft started from; none for a new form. */
  base?: Opened;
  draft: FormDraft;
}

const prefix = 'form-funnel.dashboard.draft';

/** This tab's drafts of this member in this workspace and environment. */
function scope(): string {
  const who = me.value;
  return `${prefix}:${who?.workspace.id}:${who?.member?.id ?? '-'}:${environment.value}:`;
}

const formKey = (formId: string | undefined): string => formId ?? 'new';

/** The key of a draft of `base` (a form opened at its version), or of a new form. */
export const storedDraftKey = (base: Opened | undefined): string =>
  `${scope()}${base ? `${formKey(base.form.id)}@${base.form.version}` : formKey(undefined)}`;

/** Every key holding a draft of this form (of whichever version it was opened at). */
function keysOf(formId: string | undefined): string[] {
  const start = `${scope()}${formKey(formId)}`;
  const keys: string[] = [];
  for (let index = 0; index < sessionStorage.length; index += 1) {
    const key = sessionStorage.key(index);
    if (key !== null && (key === start || key.startsWith(`${start}@`))) keys.push(key);
  }
  return keys;
}

/** The draft this tab keeps of the form (or of a new form), if any. */
export function findStoredDraft(formId: string | undefined): StoredDraft | undefined {
  for (const key of keysOf(formId)) {
    try {
      const stored = JSON.parse(sessionStorage.getItem(key) ?? '') as StoredDraft;
      if (stored && typeof stored === 'object' && stored.draft) return stored;
    } catch {
      // Not one of ours after all: left alone.
    }
  }
  return undefined;
}

/**
 * Keeps the draft (replacing any other of the same form). False when the browser refused it (storage full or
 * disabled): the draft then lives only in the page.
 */
export function storeDraft(stored: StoredDraft): boolean {
  const key = storedDraftKey(stored.base);
  try {
    for (const other of keysOf(stored.base?.form.id)) if (other !== key) sessionStorage.removeItem(other);
    sessionStorage.setItem(key, JSON.stringify(stored));
    return true;
  } catch {
    return false;
  }
}

/** Forgets the draft kept of `base` (published, discarded, or replaced by the form as it is now). */
export function forgetStoredDraft(base: Opened | undefined): void {
  try {
    sessionStorage.removeItem(storedDraftKey(base));
  } catch {
    // Storage disabled: there was nothing kept.
  }
}
