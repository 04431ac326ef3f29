import { streamHolding, unbounded } from '../../domain/concurrency-slots.js';
import { notAcceptable } from '../../domain/errors.js';
import * as rescoreJobs from '../../domain/rescore-jobs/service.js';
import * as erasure from '../../domain/submissions/erase.js';
import * as exports from '../../domain/submissions/export.js';
import * as submissions from '../../domain/submissions/service.js';
import { cursorChecked, listBody, pageOf } from './pagination.js';
import type { Handler } from './types.js';

export const listSubmissions: Handler<'listSubmissions'> = async ({ services, principal, query }) => ({
  status: 200,
  body: await listBody(submissions.listSubmissions(services, principal, query, pageOf(query))),
});

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

/** The media type of each export format; the first is what a client that accepts anything gets. */
const exportMediaTypes = { ndjson: 'application/x-ndjson', csv: 'text/csv' } as const;

export const exportSubmissions: Handler<'exportSubmissions'> = async ({ services, principal, query, accepts }) => {
  const { format: asked, starting_after, starting_after_created_at, starting_after_score, ...find } = query;
  const format = asked ?? formatAccepted(accepts);
  const resume = {
    startingAfter: starting_after,
    startingAfterCreatedAt: starting_after_created_at,
    startingAfterScore: starting_after_score,
  };
  // Taken before anything is read, and held until the download is over however it ends (concurrency-slots.ts).
  const slot = services.concurrency?.exports.take(principal.workspace.id, principal.credentialId) ?? unbounded;
  const chunks = await streamHolding(
    slot,
    async () => (await cursorChecked(exports.exportSubmissions(services, principal, find, format, resume))).chunks,
  );
  return {
    status: 200,
    stream: { contentType: `${exportMediaTypes[format]}; charset=utf-8`, chunks },
    headers: { 'Content-Disposition': `attachment; filename="submissions.${format}"` },
  };
};

function formatAccepted(accepts: (types: readonly string[]) => string | false): keyof typeof exportMediaTypes {
  const types = Object.values(exportMediaTypes);
  const chosen = accepts(types);
  if (chosen === false) throw notAcceptable(types);
  return (Object.keys(exportMediaTypes) as Array<keyof typeof exportMediaTypes>).find((format) => exportMediaTypes[format] === chosen)!;
}
