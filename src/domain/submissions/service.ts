/**
 * Submission use cases. Submissions live in the caller's environment only: a live key never reaches a test
 * submission and a test key never a live one (404 either way, as if it did not exist). Test keys submit to
 * live forms too (they read the live definitions) and their submissions are test submissions. A form- or
 * folder-attached key reaches only the submissions of the forms it is attached to.
 */
import type { Schema } from '../../contract.js';
import { newId } from '../../ids.js';
import { SearchTooBroad } from '../../store/errors.js';
import type { PageRequest } from '../../store/page.js';
import { completeContext } from '../../store/rows/submissions.js';
import { defaultSearchScan } from '../../store/search-scan.js';
import type { RescoreResult, ResumeResult, SubmissionRecord } from '../../store/submission-store.js';
import type { FormRecord } from '../../store/types.js';
import { assertFormVisible, type Principal } from '../access.js';
import { conflict, forbidden, notFound, unprocessable } from '../errors.js';
import type { DomainEvent } from '../events.js';
import { findVisibleForm } from '../forms/service.js';
import { createdMetadata, mergedMetadata } from '../metadata.js';
import { outboxOf } from '../outbox.js';
import { scoreSubmission } from '../scoring/score-submission.js';
import { type Services, timestamp } from '../services.js';
import { rethrowAsNotFound } from '../store-refusals.js';
import { emailAnswersOf } from './erase.js';
import { type FindQuery, filterOf, orderOf, searchTextOf } from './find.js';
import { assertResumable, resumedSubmission, type SubmissionUpdate } from './resume.js';
import { assertValidAnswers } from './validate-answers.js';

type Submission = Schema<'Submission'>;

const partitionOf = (principal: Principal) => ({ workspaceId: principal.workspace.id, environment: principal.environment });

const submissionEvent = (
  principal: Principal,
  submission: Submission,
  type: DomainEvent['type'],
  data: DomainEvent['data'],
): DomainEvent => ({
  ...partitionOf(principal),
  type,
  formId: submission.form_id,
  data,
});

/**
 * `submission.completed` once per submission, when it becomes completed: on create, or on the resume that
 * completes it. Integrations that want finished leads only subscribe to it alone.
 */
const completionEvents = (principal: Principal, before: Submission | undefined, after: Submission): DomainEvent[] =>
  after.status === 'completed' && before?.status !== 'completed'
    ? [submissionEvent(principal, after, 'submission.completed', { object: after })]
    : [];

export async function createSubmission(services: Services, principal: Principal, input: Schema<'SubmissionCreate'>): Promise<Submission> {
  const { form } = await findVisibleForm(services, principal, input.form_id);
  return createSubmissionOn(services, principal, form, input, newId('sub'));
}

/**
 * A submission to a form its caller has already found as the caller reaches it (a public submission, as its
 * publishable key does). `id`: chosen by a caller that records something under it first (a resume token).
 * `beforeStore`: what the caller does once the answers are found valid and before the submission is stored (a
 * public submission spends its proof of work there, so that answers refused leave it unspent); it may refuse.
 */
export async function createSubmissionOn(
  services: Services,
  principal: Principal,
  form: Schema<'Form'>,
  input: Omit<Schema<'SubmissionCreate'>, 'form_id'>,
  id: string,
  beforeStore?: () => Promise<void>,
): Promise<Submission> {
  const status = input.status ?? 'completed';
  const hidden = input.hidden ?? {};
  const visitedSteps = assertValidAnswers(form, input.answers, hidden, status);
  const { score, grade, breakdown } = scoreSubmission(form, input.answers, hidden);
  await beforeStore?.();
  const now = timestamp(services);
  const submission: Submission = {
    id,
    object: 'submission',
    form_id: form.id,
    form_version: form.version,
    status,
    test: principal.environment === 'test',
    answers: input.answers,
    hidden,
    visited_steps: visitedSteps,
    score,
    grade,
    score_breakdown: breakdown,
    context: completeContext(input.context),
    metadata: createdMetadata(input.metadata),
    completed_at: status === 'completed' ? now : null,
    scored_at: now,
    created_at: now,
    updated_at: now,
  };
  await services.store.submissions
    .insert(
      {
        submission,
        ...partitionOf(principal),
        searchText: searchTextOf(form, input.answers),
        emailAnswers: emailAnswersOf(form, input.answers),
      },
      outboxOf(services, () => ({
        events: [
          submissionEvent(principal, submission, 'submission.created', { object: submission }),
          ...completionEvents(principal, undefined, submission),
        ],
        returns: submission,
      })),
    )
    .catch(rethrowAsNotFound);
  return submission;
}

export async function listSubmissions(services: Services, principal: Principal, query: FindQuery, page: PageRequest) {
  const filter = filterOf(query);
  await assertFilterReachable(services, principal, filter.formId);
  const scan = services.searchScan ?? defaultSearchScan;
  const list = () =>
    services.store.submissions.list(
      { ...partitionOf(principal), attachment: principal.attachment },
      filter,
      page,
      orderOf(query.sort),
      scan,
    );
  const { scans } = services.concurrency ?? {};
  try {
    // A search may read 100,000 rows: it waits for its workspace's turn, so one workspace's searches share the
    // store with other workspaces' requests rather than crowding them out (concurrency-slots.ts).
    return await (filter.search !== undefined && scans ? scans.run(principal.workspace.id, list) : list());
  } catch (error) {
    if (!(error instanceof SearchTooBroad)) throw error;
    const scanned = error.scanned.toLocaleString('en-US');
    throw unprocessable(
      'search_too_broad',
      [{ location: 'query', pointer: '/q', code: 'too_broad', message: `no match in the ${scanned} submissions read` }],
      `q was checked on ${scanned} submissions without a match. Narrow the search with form_id, ` +
        'created_gte/created_lt, grade, status or min_score/max_score, or export the list (the export reads it to the end).',
    );
  }
}

/** Filtering on a form the key is not attached to reaches another form: 403, as reading that form would be. */
export async function assertFilterReachable(services: Services, principal: Principal, formId: string | undefined): Promise<void> {
  const { attachment } = principal;
  if (formId === undefined || attachment.type === 'workspace') return;
  let reachable: boolean;
  if (attachment.type === 'form') reachable = attachment.form_id === formId;
  else {
    const record = await services.store.forms.get(principal.workspace.id, formId);
    // An unknown form is no one's: the list is simply empty.
    reachable = record === undefined || record.form.folder_id === attachment.folder_id;
  }
  if (!reachable) throw forbidden('form_not_attached', `This key is attached to a ${attachment.type} that does not hold form ${formId}.`);
}

/** The submission in the caller's partition, and its form as it is now (for the attachment check and rescoring). */
export async function findSubmissionWithForm(
  services: Services,
  principal: Principal,
  id: string,
): Promise<{ record: SubmissionRecord; form: FormRecord } | undefined> {
  const record = await services.store.submissions.get(partitionOf(principal), id);
  const form = record && (await services.store.forms.get(record.workspaceId, record.submission.form_id));
  return record && form && { record, form };
}

async function findVisibleSubmission(
  services: Services,
  principal: Principal,
  id: string,
): Promise<{ record: SubmissionRecord; form: FormRecord }> {
  const found = await findSubmissionWithForm(services, principal, id);
  if (!found) throw notFound('submission', id);
  assertFormVisible(principal, found.form.form);
  return found;
}

export async function getSubmission(services: Services, principal: Principal, id: string): Promise<Submission> {
  return (await findVisibleSubmission(services, principal, id)).record.submission;
}

/** Deletes the submission; `submission.deleted` names it (ids only: the answers are gone with it). */
export async function deleteSubmission(services: Services, principal: Principal, id: string): Promise<void> {
  const { record } = await findVisibleSubmission(services, principal, id);
  const deletedAt = timestamp(services);
  const { submission } = record;
  const deleted = { id, object: 'submission', form_id: submission.form_id, deleted: true, deleted_at: deletedAt };
  await services.store.submissions
    .delete(
      partitionOf(principal),
      id,
      outboxOf(services, () => ({
        events: [submissionEvent(principal, submission, 'submission.deleted', { object: deleted })],
        returns: undefined,
      })),
    )
    .catch(rethrowAsNotFound);
}

/** Scores the stored answers with the form's current version; answers and visited steps stay as submitted. */
export async function rescoreSubmission(services: Services, principal: Principal, id: string): Promise<Schema<'RescoredSubmission'>> {
  const { record, form } = await findVisibleSubmission(services, principal, id);
  const { answers, hidden } = record.submission;
  const { score, grade, breakdown } = scoreSubmission(form.form, answers, hidden);
  const rescored = ({ submission, previous }: RescoreResult): Schema<'RescoredSubmission'> => ({
    ...submission,
    previous_score: previous.score,
    previous_grade: previous.grade,
    previous_form_version: previous.form_version,
  });
  const result = await services.store.submissions
    .rescore(
      partitionOf(principal),
      id,
      { score, grade, scoreBreakdown: breakdown, formVersion: form.form.version, at: timestamp(services) },
      outboxOf(services, (result) => ({
        events: [
          submissionEvent(principal, result.submission, 'submission.rescored', {
            object: result.submission,
            previous_attributes: result.previous,
          }),
        ],
        returns: rescored(result),
      })),
    )
    .catch(rethrowAsNotFound);
  return rescored(result);
}

/**
 * Merges more answers into a partial submission and, with `status: completed`, completes it; checked and scored
 * against the form version it started on (see ./resume.ts). The store applies the change under a write lock.
 */
export async function updateSubmission(
  services: Services,
  principal: Principal,
  id: string,
  update: SubmissionUpdate,
): Promise<Submission> {
  const { record } = await findVisibleSubmission(services, principal, id);
  return updateFoundSubmission(services, principal, record, update);
}

/** `updateSubmission` of a submission its caller has already found as the caller reaches it (a public submission). */
export async function updateFoundSubmission(
  services: Services,
  principal: Principal,
  record: SubmissionRecord,
  update: SubmissionUpdate,
): Promise<Submission> {
  const { id } = record.submission;
  const { metadata, ...resume } = update;
  // Only `metadata` alone may change a completed submission. Anything else is a resume, an empty one included (a
  // public PATCH carrying its resume token and nothing more): checked before any write, and again under the lock.
  if (metadata !== undefined && Object.keys(resume).length === 0) return updateSubmissionMetadata(services, principal, id, metadata);
  assertResumable(record.submission);
  const startedOn = record.startedFormVersion ?? record.submission.form_version;
  const version = await services.store.forms.getVersion(record.submission.form_id, startedOn);
  if (!version) {
    throw conflict(
      'form_version_unavailable',
      `Submission ${id} started on version ${startedOn} of its form, which is no longer kept; create a new submission.`,
    );
  }
  const at = timestamp(services);
  const result = await services.store.submissions
    .resume(
      partitionOf(principal),
      id,
      (current) => {
        const submission = resumedSubmission(current, update, version, at);
        return {
          submission,
          searchText: searchTextOf(version, submission.answers),
          emailAnswers: emailAnswersOf(version, submission.answers),
        };
      },
      outboxOf(services, ({ submission, previous }: ResumeResult) => ({
        events: completionEvents(principal, previous, submission),
        returns: submission,
      })),
    )
    .catch(rethrowAsNotFound);
  return result.submission;
}

/**
 * `PATCH` with `metadata` alone, on any submission, completed ones included: the pairs merged over the stored ones
 * (./metadata.ts), `updated_at` moved; answers, score and aggregates stay, and no event is sent.
 */
async function updateSubmissionMetadata(
  services: Services,
  principal: Principal,
  id: string,
  changes: SubmissionUpdate['metadata'],
): Promise<Submission> {
  const at = timestamp(services);
  return services.store.submissions
    .updateMetadata(partitionOf(principal), id, (current) => ({
      ...current,
      metadata: mergedMetadata(current.metadata, changes),
      updated_at: at,
    }))
    .catch(rethrowAsNotFound);
}
