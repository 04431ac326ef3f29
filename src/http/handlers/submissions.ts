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

export const deleteSubmission: Handler<'deleteSubmission'> = async ({ services, principal, params }) => {
  await submissions.deleteSubmission(services, principal, params.id);
  return { status: 200, body: { id: params.id, object: 'submission', deleted: true } };
};

export const rescoreSubmission: Handler<'rescoreSubmission'> = ({ replayable, principal, params }) =>
  replayable(
    (services) => submissions.rescoreSubmission(services, principal, params.id),
    (rescored) => ({ status: 200, body: rescored }),
  );
