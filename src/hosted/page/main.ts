/**
 * The hosted form's page: one step at a time, back and next, progress, errors beside their fields (announced), the
 * respondent's place kept in this browser so a reload resumes, the spam protection the form asks for, and the
 * form's appearance. Which step follows and what is wrong with an answer are decided by the server's own rules
 * (./form-rules.ts); the server checks again on arrival.
 *
 * Bundled as an IIFE whose exports (`FormFunnelPage`) are the rules as built for the browser, with how the page reads
 * a control's answer and which answers it clears: the agreement test loads this bundle and compares them with the
 * server's.
 */
import type { Schema } from '../../contract.js';
import { ApiProblem, apiCaller, type Call, solvedChallenge } from './api.js';
import { errorIdOf, h, readField } from './fields.js';
import { nextStepAfter, offPathRefs, type PublicForm, pathOf, stepIssues } from './form-rules.js';
import { reportFrameHeight } from './frame-height.js';
import { applyAppearance, askedFields, renderStep } from './step-view.js';

export { nextStepAfter, offPathRefs, pathOf, readField, stepIssues };

/** A send that may have reached the server without its answer reaching the page: retried as it was, with its key. */
interface PendingSend {
  key: string;
  method: 'POST' | 'PATCH';
  path: string;
  body: Record<string, unknown>;
  /** The answers and status it sends, to tell whether a later send still wants the same. */
  intent: string;
}

/** What this browser keeps of a respondent's progress on one form. */
interface Progress {
  /** The form version the answers and steps were taken on: another version's steps may not exist. */
  version: number;
  id?: string;
  resumeToken?: string;
  /** When the server stops accepting the resume token: the answers (personal data) are not kept past it. */
  expiresAt?: string;
  answers: Record<string, unknown>;
  /** Positions of the steps shown so far; the last is the current one. */
  history: number[];
  pending?: PendingSend;
}

const storageKey = (formId: string) => `form-funnel:${formId}`;

/** Progress with no submission yet (a first send unanswered) is kept as long as its Idempotency-Key replays: a day. */
const unconfirmedLifetimeMs = 24 * 60 * 60 * 1000;

function usable(saved: Progress | null, form: PublicForm): saved is Progress {
  return (
    saved !== null &&
    saved.version === form.version &&
    typeof saved.expiresAt === 'string' &&
    Date.parse(saved.expiresAt) > Date.now() &&
    Array.isArray(saved.history) &&
    saved.history.length > 0 &&
    saved.history.every((index) => Number.isInteger(index) && index >= 0 && index < form.steps.length) &&
    typeof saved.answers === 'object' &&
    saved.answers !== null
  );
}

function loadProgress(form: PublicForm): Progress {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey(form.id)) ?? 'null') as Progress | null;
    if (usable(saved, form)) return saved;
    // Another version of the form, expired, or unreadable: the answers go, and the respondent starts afresh.
    if (saved !== null) localStorage.removeItem(storageKey(form.id));
  } catch {
    // Storage unavailable or unreadable: start afresh.
  }
  return { version: form.version, answers: {}, history: [0] };
}

function saveProgress(formId: string, progress: Progress | null): void {
  try {
    if (progress === null) localStorage.removeItem(storageKey(formId));
    else localStorage.setItem(storageKey(formId), JSON.stringify(progress));
  } catch {
    // Without storage the page still works; only a reload loses the place.
  }
}

const utmNames = ['source', 'medium', 'campaign', 'term', 'content'] as const;
/** What the contract's ContextText takes: 1 to 256 characters, no control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the pattern refuses control characters.
const contextText = /^[^\x00-\x1F\x7F-\x9F]{1,256}$/;

/**
 * The page the respondent landed on. In an embed, that is the site's page holding the frame, which embed.js passes
 * as `parent_url` (its campaign parameters are the site's, not the frame's); never the frame's own address, which
 * carries the publishable key (`embed=`).
 */
function landingUrl(): URL {
  const own = new URL(location.href);
  const parent = own.searchParams.get('parent_url');
  if (own.searchParams.has('embed') && parent !== null && parent.length <= 2048) {
    try {
      const url = new URL(parent);
      if (url.protocol === 'https:' || url.protocol === 'http:') return url;
    } catch {
      // Not a URL: the frame's own address below.
    }
  }
  own.searchParams.delete('embed');
  own.searchParams.delete('parent_url');
  return own;
}

/** The submission's context: the landing page and its UTM parameters, each only if the contract takes it. */
function contextOf(landing: URL): Schema<'PublicSubmissionContext'> {
  const utm: Record<string, string> = {};
  for (const name of utmNames) {
    const value = landing.searchParams.get(`utm_${name}`);
    if (value !== null && contextText.test(value)) utm[name] = value;
  }
  return {
    ...(landing.href.length <= 2048 ? { landing_url: landing.href } : {}),
    ...(Object.keys(utm).length > 0 ? { utm } : {}),
  };
}

/** Hidden fields take their values from the landing page's query string (`?utm_source=…`), as links carry them. */
function hiddenValues(form: PublicForm, landing: URL): Record<string, string> {
  const hidden: Record<string, string> = {};
  for (const field of form.steps.flatMap((step) => step.fields)) {
    const value = landing.searchParams.get(field.ref);
    if (field.type === 'hidden' && value !== null) hidden[field.ref] = value;
  }
  return hidden;
}

function page(root: HTMLElement, form: PublicForm, call: Call, workerUrl: string): void {
  const landing = landingUrl();
  const hidden = hiddenValues(form, landing);
  const progress = loadProgress(form);
  const trap = form.spam_protection.honeypot_field;
  const status = h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' });
  const current = () => progress.history[progress.history.length - 1]!;

  function showIssues(issues: readonly Schema<'ValidationIssue'>[]): void {
    for (const line of root.querySelectorAll<HTMLElement>('.error')) line.textContent = '';
    for (const control of root.querySelectorAll('[aria-invalid]')) control.removeAttribute('aria-invalid');
    for (const issue of issues) {
      const line = issue.field === undefined ? null : document.getElementById(errorIdOf(issue.field));
      if (!line) continue;
      // The server's message names the field by its ref; beside the field, "This answer" reads better.
      line.textContent = issue.message.replace(/^`[^`]+` /, 'This answer ');
      line.closest('.field')?.querySelector('input, textarea, fieldset')?.setAttribute('aria-invalid', 'true');
    }
    const first = issues.find((issue) => issue.field !== undefined && document.getElementById(errorIdOf(issue.field)));
    if (first?.field)
      root
        .querySelector<HTMLElement>(
          `.field[data-ref="${CSS.escape(first.field)}"] input, .field[data-ref="${CSS.escape(first.field)}"] textarea`,
        )
        ?.focus();
  }

  function render(focusHeading: boolean): void {
    const index = current();
    const step = form.steps[index]!;
    const total = Math.max(pathOf(form, progress.answers, hidden).length, progress.history.length);
    const position = progress.history.length;
    const isLast = nextStepAfter(form, index, progress.answers, hidden) >= form.steps.length;
    const honeypot =
      trap !== null && progress.id === undefined
        ? h(
            'div',
            { class: 'trap', 'aria-hidden': 'true' },
            h('label', { for: 'trap-input' }, 'Leave this empty'),
            h('input', { name: trap, id: 'trap-input', tabindex: -1, autocomplete: 'off' }),
          )
        : '';
    const place = { position, total, isLast, canGoBack: progress.history.length > 1 };
    const { nodes, heading, form: formElement, back, next } = renderStep(form, step, progress.answers, place, honeypot);
    root.replaceChildren(...nodes, status);
    back.addEventListener('click', () => {
      progress.history.pop();
      saveProgress(form.id, progress);
      render(true);
    });
    formElement.addEventListener('submit', (event) => {
      event.preventDefault();
      void send(formElement, next);
    });
    if (focusHeading) heading.focus();
  }

  async function send(formElement: HTMLFormElement, button: HTMLButtonElement): Promise<void> {
    const index = current();
    for (const field of askedFields(form.steps[index]!.fields)) {
      const value = readField(formElement, field);
      if (value === undefined) delete progress.answers[field.ref];
      else progress.answers[field.ref] = value;
    }
    const issues = stepIssues(form, index, progress.answers, hidden);
    showIssues(issues);
    if (issues.length > 0) {
      status.textContent = issues.length === 1 ? 'One answer needs your attention.' : `${issues.length} answers need your attention.`;
      return;
    }
    const next = nextStepAfter(form, index, progress.answers, hidden);
    const completed = next >= form.steps.length;
    // Answers left on steps the respondent no longer passes through are cleared once this send succeeds.
    const offPath = offPathRefs(form, progress.answers, hidden);
    button.disabled = true;
    status.textContent = completed ? 'Sending…' : '';
    try {
      await deliver(formElement, offPath, completed ? 'completed' : 'partial');
      for (const ref of offPath) delete progress.answers[ref];
      if (completed) return finish();
      progress.history.push(next);
      saveProgress(form.id, progress);
      render(true);
    } catch (error) {
      // The submission was completed already (by this page, whose answer was lost, or another tab): done.
      if (error instanceof ApiProblem && error.code === 'submission_completed') return finish();
      button.disabled = false;
      if (error instanceof ApiProblem && error.code === 'invalid_resume_token') {
        // The saved submission can no longer be continued: start again with the answers the respondent gave.
        delete progress.id;
        delete progress.resumeToken;
        delete progress.pending;
        saveProgress(form.id, progress);
      }
      if (error instanceof ApiProblem) showIssues(error.issues);
      status.textContent = error instanceof Error ? error.message : 'Something went wrong; please try again.';
    }
  }

  function finish(): void {
    saveProgress(form.id, null);
    const done = h('h2', { tabindex: -1 }, 'Thank you!');
    root.replaceChildren(h('h1', {}, form.name), h('div', { class: 'done', role: 'status' }, done, h('p', {}, 'Your answers were sent.')));
    done.focus();
  }

  function accept(result: Partial<Schema<'PublicSubmissionCreated'>>): void {
    if (result.id !== undefined && typeof result.resume_token === 'string') {
      progress.id = result.id;
      progress.resumeToken = result.resume_token;
    }
    if (typeof result.resume_expires_at === 'string') progress.expiresAt = result.resume_expires_at;
  }

  /**
   * Sends the answers with the submission status `outcome`. A send still pending from before (its answer lost, or
   * the page reloaded) is first replayed as it was, with its Idempotency-Key, so the server answers it again rather
   * than acting twice; if it already sent what is wanted now, that is the send.
   */
  async function deliver(formElement: HTMLFormElement, offPath: readonly string[], outcome: 'partial' | 'completed'): Promise<void> {
    const kept = Object.fromEntries(Object.entries(progress.answers).filter(([ref]) => !offPath.includes(ref)));
    const intent = JSON.stringify({ answers: kept, status: outcome });
    const pending = progress.pending;
    if (pending) {
      try {
        accept(await call(pending.method, pending.path, pending.body, pending.key));
        delete progress.pending;
        saveProgress(form.id, progress);
        if (pending.intent === intent) return;
      } catch (error) {
        // Refused as invalid (a spent challenge, an answer since corrected): it changed nothing, the send below
        // replaces it. Any other failure may not be final, so the pending send stays for the next try.
        if (!(error instanceof ApiProblem) || ![400, 422].includes(error.status)) throw error;
        delete progress.pending;
      }
    }
    let send: Omit<PendingSend, 'key' | 'intent'>;
    if (progress.id === undefined || progress.resumeToken === undefined) {
      // A new submission has no earlier answers to clear: answers off the path are left out.
      const answers: Record<string, unknown> = { ...kept };
      if (trap !== null) answers[trap] = formElement.querySelector<HTMLInputElement>('#trap-input')?.value ?? '';
      const challenge = form.spam_protection.proof_of_work ? await solvedChallenge(call, workerUrl) : undefined;
      const body = {
        form_id: form.id,
        answers,
        hidden,
        status: outcome,
        started_token: form.started_token,
        challenge,
        context: contextOf(landing),
      };
      send = { method: 'POST', path: '/public/submissions', body };
    } else {
      // Only null clears a stored answer (an empty string would be stored as the answer).
      const answers: Record<string, unknown> = { ...kept };
      for (const ref of offPath) answers[ref] = null;
      send = {
        method: 'PATCH',
        path: `/public/submissions/${progress.id}`,
        body: { resume_token: progress.resumeToken, answers, status: outcome },
      };
    }
    progress.pending = { ...send, key: crypto.randomUUID(), intent };
    progress.expiresAt ??= new Date(Date.now() + unconfirmedLifetimeMs).toISOString();
    saveProgress(form.id, progress);
    accept(await call(send.method, send.path, send.body, progress.pending.key));
    delete progress.pending;
    saveProgress(form.id, progress);
  }

  render(false);
  // Milliseconds from navigation to the first step on screen, for `npm run bench:page` (and any RUM tool).
  performance.mark('form-funnel:first-step');
}

async function start(): Promise<void> {
  const root = document.getElementById('hosted-form');
  if (!root) return;
  const { form: formId, key, api, worker } = root.dataset;
  if (!formId || !key || !api || !worker) return;
  reportFrameHeight(formId);
  const call = apiCaller(api, key);
  try {
    // The server puts the form in the page (a JSON block, which the page's policy does not treat as script).
    const embedded = document.getElementById('hosted-form-data')?.textContent;
    const form = embedded ? (JSON.parse(embedded) as PublicForm) : await call<PublicForm>('GET', `/public/forms/${formId}`);
    applyAppearance(form.appearance);
    page(root, form, call, worker);
  } catch (error) {
    root.append(h('p', { class: 'status', role: 'alert' }, error instanceof Error ? error.message : 'The form could not be loaded.'));
  }
}

if (typeof document !== 'undefined') void start();
