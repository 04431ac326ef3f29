/**
 * Public submissions: what a web page submits with a publishable key. They are stored, validated, scored, counted
 * and delivered by the same use cases as `POST /submissions` and `PATCH /submissions/{id}` (../submissions/), as the
 * key's environment; what differs is around them: the form must be one the key reaches (404 otherwise), spam
 * protection sees every submission first, the respondent's context comes from the request, the page gets back no
 * score or grade, and a partial submission is continued only with the resume token its creation returned.
 */
import type { Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import type { Principal } from '../access.js';
import { utcDayOf } from '../analytics/date-range.js';
import { forbidden, notFound } from '../errors.js';
import type { Services } from '../services.js';
import { submissionCompleted } from '../submissions/resume.js';
import { createSubmissionOn, findSubmissionWithForm, updateFoundSubmission } from '../submissions/service.js';
import { assertValidAnswers, invalidAnswers, validateAnswers } from '../submissions/validate-answers.js';
import { findPublicForm, reachesForm } from './forms.js';
import { generateResumeToken, hashResumeToken, resumeExpiryOf, resumeTokenMatches } from './resume-token.js';
import { checkSpamProtection, spendOrRefuse } from './spam-check.js';

type Submission = Schema<'Submission'>;
type PublicSubmission = Omit<Schema<'PublicSubmission'>, 'request_id'>;
type PublicSubmissionCreated = Omit<Schema<'PublicSubmissionCreated'>, 'request_id'>;

const publicView = (submission: Pick<Submission, 'id' | 'form_id' | 'status'>, resumeExpiresAt: string | null): PublicSubmission => ({
  object: 'public_submission',
  id: submission.id,
  form_id: submission.form_id,
  status: submission.status,
  resume_expires_at: submission.status === 'partial' ? resumeExpiresAt : null,
});

/**
 * The submission use cases seal the response of an Idempotency-Key inside their transaction, from the submission
 * they return; here the page's response is built from it instead, so a retry replays what the page was answered.
 */
function answeringWith(services: Services, view: (submission: Submission) => unknown): Services {
  const { idempotentResponse } = services;
  return idempotentResponse
    ? { ...services, idempotentResponse: (returned) => idempotentResponse(view(returned as Submission)) }
    : services;
}

/** What the request says of the respondent, apart from its body (its address is used for limits, never stored). */
export interface RespondentContext {
  userAgent: string | undefined;
  referrer: string | undefined;
}

/** C0 and C1 control characters, which no text the submission keeps may hold. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds.
const controlCharacters = /[\x00-\x1F\x7F-\x9F]/g;
/** What a submission's `referrer` may hold: the document's ContextUrl pattern and length (spec-sync pins both). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the pattern refuses control characters.
export const contextUrlPattern = /^https?:\/\/[^\x00-\x20\x7F-\x9F/?#]+([/?#][^\x00-\x20\x7F-\x9F]*)?$/;
export const MAX_CONTEXT_URL_LENGTH = 2048;
/** SubmissionContextCreate's `user_agent` length: a longer header is cut to it. */
export const MAX_USER_AGENT_LENGTH = 512;

/** The respondent's context as the request carries it, in the shape the submission keeps (see SubmissionContext). */
function contextOf(body: Schema<'PublicSubmissionCreate'>, context: RespondentContext): Schema<'SubmissionContextCreate'> {
  const userAgent = context.userAgent?.replace(controlCharacters, '').slice(0, MAX_USER_AGENT_LENGTH);
  const referrer = absoluteUrl(context.referrer);
  return {
    ...(userAgent ? { user_agent: userAgent } : {}),
    ...(referrer ? { referrer } : {}),
    ...(body.context?.landing_url === undefined ? {} : { landing_url: body.context.landing_url }),
    ...(body.context?.utm === undefined ? {} : { utm: body.context.utm }),
  };
}

/** A `Referer` header kept only when it is what a submission's `referrer` may hold; browsers send one, others may not. */
function absoluteUrl(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let href: string;
  try {
    href = new URL(text).href;
  } catch {
    return undefined;
  }
  return contextUrlPattern.test(href) && href.length <= MAX_CONTEXT_URL_LENGTH ? href : undefined;
}

export async function createPublicSubmission(
  services: Services,
  principal: Principal,
  body: Schema<'PublicSubmissionCreate'>,
  context: RespondentContext,
): Promise<PublicSubmissionCreated> {
  const form = await findPublicForm(services, principal, body.form_id);
  const status = body.status ?? 'completed';
  const id = newId('sub');
  const resumeToken = status === 'partial' ? generateResumeToken() : null;
  const resumeExpiresAt = resumeExpiryOf(services.now());
  const created = (submission: Pick<Submission, 'id' | 'form_id' | 'status'>): PublicSubmissionCreated => ({
    ...publicView(submission, resumeExpiresAt),
    resume_token: submission.status === 'partial' ? resumeToken : null,
  });
  const { verdict, spends } = await checkSpamProtection(services, principal, form, body);
  if (verdict === 'discard') {
    // Refused as a real one would be (its answers, then what it spends), then answered as if it had been stored
    // while nothing is stored or delivered: a bot learns nothing from the answer, nor from what it sends next
    // (see updatePublicSubmission).
    assertValidAnswers(form.form, body.answers, body.hidden ?? {}, status);
    await spendOrRefuse(services, form.form, spends);
    await services.store.spam.countSpam(form.form.id, principal.environment, utcDayOf(services.now()));
    await services.store.spam.recordCaught({
      submissionId: id,
      workspaceId: principal.workspace.id,
      environment: principal.environment,
      formId: form.form.id,
      tokenHash: resumeToken === null ? Buffer.alloc(0) : hashResumeToken(resumeToken),
      completed: status === 'completed',
      expiresAt: resumeExpiresAt,
    });
    return created({ id, form_id: form.form.id, status });
  }
  // Once the answers are found valid: the proof of work and started token are spent (or the submission refused),
  // then the resume token recorded under the id the submission will have, so it is never stored without it (an
  // insert that then fails leaves a hash that no submission will ever have).
  let spent = false;
  const beforeStore = async () => {
    await spendOrRefuse(services, form.form, spends);
    spent = true;
    if (resumeToken !== null) {
      await services.store.publishableKeys.saveResumeToken({
        submissionId: id,
        tokenHash: hashResumeToken(resumeToken),
        expiresAt: resumeExpiresAt,
      });
    }
  };
  try {
    const submission = await createSubmissionOn(
      answeringWith(services, created),
      principal,
      form.form,
      { answers: body.answers, hidden: body.hidden ?? {}, status, context: contextOf(body, context) },
      id,
      beforeStore,
    );
    return created(submission);
  } catch (error) {
    // Spent, then not stored (the form deleted meanwhile, the database lost): the claims go back, so the page's
    // retry is not refused for what no stored submission spent. Where the store cannot take them back either,
    // they stay spent until they expire, and the page fetches the form again.
    if (spent) await services.store.spam.refund(spends).catch(() => undefined);
    throw error;
  }
}

/**
 * 403 `invalid_resume_token` unless `given` is the submission's token; then 409 `submission_completed` for a
 * completed one, whose token holder is told so however long ago its window ended; then 403 again once the window
 * has ended.
 */
function assertTokenContinues<Stored extends { tokenHash: Buffer; expiresAt: string }>(
  stored: Stored | undefined,
  given: string,
  id: string,
  now: Date,
  completed: boolean,
): asserts stored is Stored {
  const refused = () =>
    forbidden(
      'invalid_resume_token',
      `This resume token does not continue submission ${id}, or its resume window has ended; start a new submission.`,
    );
  if (!stored || !resumeTokenMatches(stored.tokenHash, given)) throw refused();
  if (completed) throw submissionCompleted(id);
  if (Date.parse(stored.expiresAt) <= now.getTime()) throw refused();
}

export async function updatePublicSubmission(
  services: Services,
  principal: Principal,
  id: string,
  body: Schema<'PublicSubmissionUpdate'>,
): Promise<PublicSubmission> {
  const found = await findSubmissionWithForm(services, principal, id);
  if (!found) return updateCaughtSubmission(services, principal, id, body);
  if (!reachesForm(principal, found.form.form)) throw notFound('submission', id);
  const token = await services.store.publishableKeys.findResumeToken(id);
  assertTokenContinues(token, body.resume_token, id, services.now(), found.record.submission.status === 'completed');
  const { resume_token: _, ...update } = body;
  const view = (submission: Submission) => publicView(submission, token.expiresAt);
  return view(await updateFoundSubmission(answeringWith(services, view), principal, found.record, update));
}

/**
 * A PATCH of a submission the honeypot caught, answered as a real one's would be in the same state (the same
 * refusals in the same order, the same 200 body): the page's bot cannot tell that nothing was stored. Its answers
 * are checked as far as they can be without the earlier ones, which were not kept: each against its field (an
 * unknown ref, a value its field refuses), not the logic's path nor, on completion, the required fields.
 */
async function updateCaughtSubmission(
  services: Services,
  principal: Principal,
  id: string,
  body: Schema<'PublicSubmissionUpdate'>,
): Promise<PublicSubmission> {
  const caught = await services.store.spam.findCaught(id);
  const form =
    caught && caught.workspaceId === principal.workspace.id && caught.environment === principal.environment
      ? await services.store.forms.get(caught.workspaceId, caught.formId)
      : undefined;
  if (!caught || !form || !reachesForm(principal, form.form)) throw notFound('submission', id);
  assertTokenContinues(caught, body.resume_token, id, services.now(), caught.completed);
  assertAnswersFitFields(form.form, body);
  const status = body.status ?? 'partial';
  if (status === 'completed' && !(await services.store.spam.completeCaught(id))) throw submissionCompleted(id);
  return publicView({ id, form_id: caught.formId, status }, caught.expiresAt);
}

/** 422 `invalid_answers` for the answers of `update` that no field of the form takes, or that their field refuses. */
function assertAnswersFitFields(form: Schema<'Form'>, update: Schema<'PublicSubmissionUpdate'>): void {
  const given = (values: Record<string, unknown> | undefined) =>
    Object.fromEntries(Object.entries(values ?? {}).filter(([, value]) => value !== null));
  const { issues } = validateAnswers(form, given(update.answers), given(update.hidden), 'partial');
  const fieldIssues = issues.filter((issue) => issue.code !== 'not_visited');
  if (fieldIssues.length > 0) throw invalidAnswers(fieldIssues);
}
