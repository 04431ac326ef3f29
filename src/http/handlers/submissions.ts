import * as rescoreJobs from '../../domain/rescore-jobs/service.js';
import * as erasure from '../../domain/submissions/erase.js';
import * as submissions from '../../domain/submissions/service.js';
import { listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const listSubmissions: Handler<'listSubmissions'> = async ({ services, principal, query }) => {
  const filter = {
    formId: query.form_id,
    status: query.status,
    createdGte: query.created_gte,
    createdLt: query.created_lt,
    minScore: query.min_score,
    utmSource: query.utm_source,
  };
  return { status: 200, body: await listBody(submissions.listSubmissions(services, principal, filter, pageOf(query))) };
};

export const createSubmission: Handler<'createSubmission'> = ({ replayable, principal, body }) =>
  replayable(
    (services) => submissions.createSubmission(services, principal, body),
    (submission) => ({ status: 201, body: submission, headers: { Location: `/v1/submissions/${submission.id}` } }),
  );

export const getSubmission: Handler<'getSubmission'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await submissions.getSubmission(services, principal, params.id),
});

export const updateSubmission: Handler<'updateSubmission'> = ({ replayable, principal, params, body }) =>
  replayable(
    (services) => submissions.updateSubmission(services, principal, params.id, body),
    (submission) => ({ status: 200, body: submission }),
  );

export const deleteSubmission: Handler<'deleteSubmission'> = async ({ services, principal, params }) => {
  await submissions.deleteSubmission(services, principal, params.id);
  return { status: 200, body: { id: params.id, object: 'submission', deleted: true } };
};

export const rescoreSubmission: Handler<'rescoreSubmission'> = ({ replayable, principal, params }) =>
  replayable(
    (services) => submissions.rescoreSubmission(services, principal, params.id),
    (rescored) => ({ status: 200, body: rescored }),
  );

export const eraseSubmissions: Handler<'eraseSubmissions'> = ({ replayable, principal, body }) =>
  replayable(
    (services) => erasure.eraseSubmissions(services, principal, body.email),
    (erased) => ({ status: 200, body: erased }),
  );

export const rescoreForm: Handler<'rescoreForm'> = ({ replayable, principal, params }) =>
  replayable(
    (services) => rescoreJobs.startRescoreJob(services, principal, params.id),
    (job) => ({ status: 202, body: job, headers: { Location: `/v1/rescore_jobs/${job.id}` } }),
  );

export const getRescoreJob: Handler<'getRescoreJob'> = async ({ services, principal, params }) => ({
  status: 200,
  body: await rescoreJobs.getRescoreJob(services, principal, params.id),
});
