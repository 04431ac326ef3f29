/**
 * The hosted form's page: the form's welcome screen, then one step at a time, back and next (or submit, on the last
 * step of the path the answers take), progress, errors beside their fields (announced, cleared as soon as an answer is
 * fixed), the respondent's place kept in this browser so a reload resumes, the spam protection the form asks for, the
 * form's appearance and language, and its ending screen, which may send the respondent on. Which step follows and
 * what is wrong with an answer are decided by the server's own rules (./form-rules.ts); the server checks again on
 * arrival.
 *
 * Bundled as an IIFE whose exports (`FormFunnelPage`) are the rules as built for the browser, with how the page reads
 * a control's answer and which answers it clears: the agreement test loads this bundle and compares them with the
 * server's.
 */
import type { Schema } from '../../contract.js';
import { ApiProblem, apiCaller, type Call, SpamCheckFailed, solvedChallenge, Unreachable } from './api.js';
import { h, readField } from './fields.js';
import { nextStepAfter, offPathRefs, type PublicForm, pathOf, stepIssues } from './form-rules.js';
import { askParentToNavigate, reportFrameHeight } from './frame-height.js';
import type { MessageKey } from './i18n/catalogue.js';
import { catalogueFor } from './i18n/load.js';
import { type Localizer, localizer } from './i18n/localize.js';
import { issueText } from './issue-text.js';
import { contextOf, hiddenValues, landingUrl } from './landing.js';
import { loadProgress, type PendingSend, saveProgress, unconfirmedLifetimeMs } from './saved-progress.js';
import { redirectTarget, renderEnding, renderWelcome } from './screens.js';
import { applyAppearance, applyLanguage, askedFields, renderStep, type StepPlace } from './step-view.js';

export { nextStepAfter, offPathRefs, pathOf, readField, stepIssues };

type Issue = Schema<'ValidationIssue'>;

/** The page script's own address, beside which its language files are: known only while the script first runs. */
const scriptUrl = typeof document === 'undefined' ? '' : ((document.currentScript as HTMLScriptElement | null)?.src ?? '');

function page(root: HTMLElement, form: PublicForm, call: Call, workerUrl: string, text: Localizer): void {
  const landing = landingUrl();
  const hidden = hiddenValues(form, landing);
  const { progress, resumed } = loadProgress(form);
  const trap = form.spam_protection.honeypot_field;
  const status = h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' });
  const current = () => progress.history[progress.history.length - 1]!;
  const fieldsByRef = new Map(form.steps.flatMap((step) => askedFields(step.fields)).map((field) => [field.ref, field]));
  /** The completed submission's id, for the ending's redirect address. */
  let submissionId = progress.id;
  /** Whether the status line counts the answers that need attention (and follows that count as they are fixed). */
  let counting = false;
  /**
   * The service's issues with the step's answers (a 422), each beside the answer it was about: one the page cannot
   * check itself stays shown until that answer changes, however the respondent edits the other fields.
   */
  let serviceIssues: Array<{ issue: Issue; answer: string | undefined }> = [];
  const answerKey = (answers: Record<string, unknown>, issue: Issue) =>
    issue.field === undefined ? undefined : JSON.stringify(answers[issue.field]);

  // A live region speaks each time its text is set: set only when it changes.
  const say = (message: string) => {
    counting = false;
    if (status.textContent !== message) status.textContent = message;
  };
  const countIssues = (count: number) => {
    say(count > 0 ? text.text('attention', { count }) : '');
    counting = count > 0;
  };

  /**
   * Shows each field's issue on its error line, in the form's language, and marks its control invalid; clears the
   * others. With `focus`, moves to the first field in error. Returns how many fields show an issue.
   */
  function showIssues(issues: readonly Issue[], focus: boolean): number {
    const messages = new Map<string, string>();
    for (const issue of issues) {
      const field = issue.field === undefined ? undefined : fieldsByRef.get(issue.field);
      if (field && !messages.has(field.ref)) messages.set(field.ref, issueText(issue, field, text));
    }
    let shown = 0;
    let first: HTMLElement | undefined;
    for (const block of root.querySelectorAll<HTMLElement>('.field[data-ref]')) {
      const message = messages.get(block.dataset.ref!) ?? '';
      const line = block.querySelector<HTMLElement>('.error');
      if (line && line.textContent !== message) line.textContent = message;
      const control = block.querySelector('input, textarea, fieldset');
      if (message) control?.setAttribute('aria-invalid', 'true');
      else control?.removeAttribute('aria-invalid');
      if (!message) continue;
      shown += 1;
      first ??= block;
    }
    if (focus) first?.querySelector<HTMLElement>('input, textarea')?.focus();
    return shown;
  }

  /** The answers so far with what the current step's controls hold now. */
  function answersWith(formElement: HTMLFormElement, index: number): Record<string, unknown> {
    const answers = { ...progress.answers };
    for (const field of askedFields(form.steps[index]!.fields)) {
      const value = readField(formElement, field);
      if (value === undefined) delete answers[field.ref];
      else answers[field.ref] = value;
    }
    return answers;
  }

  /** Where step `index` is on the path these answers take, and whether it is the path's last (its button submits). */
  const placeOf = (answers: Record<string, unknown>, index: number): Omit<StepPlace, 'canGoBack'> => ({
    position: progress.history.length,
    total: Math.max(pathOf(form, answers, hidden).length, progress.history.length),
    isLast: nextStepAfter(form, index, answers, hidden) >= form.steps.length,
  });

  function welcome(screen: Schema<'FormWelcome'>): void {
    const view = renderWelcome(form, screen, text);
    root.replaceChildren(...view.nodes);
    view.start.addEventListener('click', () => render(true));
  }

  function render(focusHeading: boolean): void {
    const index = current();
    serviceIssues = [];
    const honeypot =
      trap !== null && progress.id === undefined
        ? h(
            'div',
            { class: 'trap', 'aria-hidden': 'true' },
            h('label', { for: 'trap-input' }, text.text('honeypot')),
            h('input', { name: trap, id: 'trap-input', tabindex: -1, autocomplete: 'off' }),
          )
        : '';
    const place = { ...placeOf(progress.answers, index), canGoBack: progress.history.length > 1 };
    const view = renderStep(form, form.steps[index]!, progress.answers, place, honeypot, text);
    root.replaceChildren(...view.nodes, status);
    // Once the respondent has tried to leave the step, its errors follow the answers: gone when fixed, back if not.
    let attempted = false;
    const edited = () => {
      const answers = answersWith(view.form, index);
      view.showPlace(placeOf(answers, index));
      if (!attempted) return;
      const unchanged = serviceIssues.filter(({ issue, answer }) => answerKey(answers, issue) === answer).map(({ issue }) => issue);
      const shown = showIssues([...stepIssues(form, index, answers, hidden), ...unchanged], false);
      if (counting) countIssues(shown);
    };
    view.form.addEventListener('input', edited);
    view.form.addEventListener('change', edited);
    view.back.addEventListener('click', () => {
      progress.history.pop();
      saveProgress(form.id, progress);
      render(true);
    });
    view.form.addEventListener('submit', (event) => {
      event.preventDefault();
      attempted = true;
      void send(view.form, view.next);
    });
    if (focusHeading) view.heading.focus();
  }

  /** What the status line says when a send fails; `attention` when the fields in error say it better. */
  function failureOf(error: unknown, shownIssues: number): MessageKey {
    if (error instanceof SpamCheckFailed) return 'spamCheck';
    if (error instanceof Unreachable) return 'offline';
    if (!(error instanceof ApiProblem)) return 'failed';
    if (error.code === 'invalid_resume_token') return 'resumeLost';
    if (error.code === 'submitted_too_fast') return 'tooFast';
    if (error.code === 'challenge_required' || error.code === 'challenge_invalid') return 'spamCheck';
    if (error.status === 429) return 'rateLimited';
    if (error.status === 502 || error.status === 503 || error.status === 504) return 'unavailable';
    return shownIssues > 0 ? 'attention' : 'failed';
  }

  async function send(formElement: HTMLFormElement, button: HTMLButtonElement): Promise<void> {
    const index = current();
    progress.answers = answersWith(formElement, index);
    const shown = showIssues(stepIssues(form, index, progress.answers, hidden), true);
    if (shown > 0) return countIssues(shown);
    const next = nextStepAfter(form, index, progress.answers, hidden);
    const completed = next >= form.steps.length;
    // Answers left on steps the respondent no longer passes through are cleared once this send succeeds.
    const offPath = offPathRefs(form, progress.answers, hidden);
    button.disabled = true;
    say(completed ? text.text('sending') : '');
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
      serviceIssues =
        error instanceof ApiProblem ? error.issues.map((issue) => ({ issue, answer: answerKey(progress.answers, issue) })) : [];
      const shownIssues = showIssues(
        serviceIssues.map(({ issue }) => issue),
        true,
      );
      const failure = failureOf(error, shownIssues);
      if (failure === 'attention') countIssues(shownIssues);
      else say(text.text(failure));
    }
  }

  /** The ending screen (the form's, or the page's thank-you), then the ending's redirect if it has one. */
  function finish(): void {
    saveProgress(form.id, null);
    const redirect = form.ending?.redirect_url ? redirectTarget(form.ending.redirect_url, submissionId) : undefined;
    const view = renderEnding(form, form.ending, text, redirect);
    root.replaceChildren(...view.nodes);
    view.heading.focus();
    // In a frame, only the parent page (embed.js) can take the whole window there.
    if (redirect && !askParentToNavigate(redirect.href)) location.assign(redirect.href);
  }

  function accept(result: Partial<Schema<'PublicSubmissionCreated'>>): void {
    if (result.id !== undefined) submissionId = result.id;
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

  // A respondent coming back to a form begun earlier goes straight to their step, told how long it is kept.
  if (resumed && progress.expiresAt) say(text.text('resumed', { date: text.date(new Date(progress.expiresAt)) }));
  if (form.welcome && !resumed) welcome(form.welcome);
  else render(false);
  // Milliseconds from navigation to the first screen (a step, or the welcome), for `npm run bench:page` (and any RUM
  // tool).
  performance.mark('form-funnel:first-step');
}

async function start(): Promise<void> {
  const root = document.getElementById('hosted-form');
  if (!root) return;
  const { form: formId, key, api, worker } = root.dataset;
  if (!formId || !key || !api || !worker) return;
  reportFrameHeight(formId);
  const call = apiCaller(api, key);
  let form: PublicForm;
  try {
    // The server puts the form in the page (a JSON block, which the page's policy does not treat as script).
    const embedded = document.getElementById('hosted-form-data')?.textContent;
    form = embedded ? (JSON.parse(embedded) as PublicForm) : await call<PublicForm>('GET', `/public/forms/${formId}`);
  } catch {
    // Said in the language the server gave the page, if any.
    const tag = document.documentElement.lang || 'en';
    const text = localizer(tag, await catalogueFor(tag, scriptUrl));
    root.append(h('p', { class: 'status', role: 'alert' }, text.text('loadFailed')));
    return;
  }
  const text = localizer(form.language, await catalogueFor(form.language, scriptUrl));
  applyLanguage(form.language, text);
  applyAppearance(form.appearance);
  page(root, form, call, worker, text);
}

if (typeof document !== 'undefined') void start();
