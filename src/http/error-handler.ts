/**
 * The one place that turns any error into a response: application errors keep their status and code,
 * validator errors are translated (body-parser errors already are, in `request-body.ts`), a store that cannot
 * answer now is a 503 with `Retry-After`, and everything else is a 500 whose details go to the log only, never
 * to the client. `lastResort` stands behind it, so that whatever happens there the answer is still a problem.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, internalError, routeNotFound, serviceUnavailable } from '../domain/errors.js';
import { StoreUnavailable } from '../store/errors.js';
import { type RequestState, stateOf } from './locals.js';
import { problemBody, sendProblem } from './problem.js';
import { expectedMediaTypes } from './request-body.js';
import { fromValidatorError, isValidatorError } from './validation.js';

function toAppError(error: unknown, state: RequestState, log: Logger, body: unknown): AppError {
  if (error instanceof AppError) return error;
  const { requestId: request_id } = state;
  if (error instanceof StoreUnavailable) {
    log.warn({ request_id, err: error.cause ?? error, reason: error.reason }, 'store unavailable');
    return serviceUnavailable(STORE_RETRY_AFTER_SECONDS);
  }
  if (isValidatorError(error) && (error.status === 400 || error.status === 415)) {
    return fromValidatorError(error, expectedMediaTypes(state.operation), state.parameterIssues ?? [], body);
  }
  // A 500 from the response validator means the server broke the contract: loud in the log.
  if (isValidatorError(error)) log.error({ request_id, violation: error.errors, message: error.message }, 'response broke the contract');
  else log.error({ request_id, err: error }, 'unhandled error');
  return internalError();
}

/**
 * What a 503 tells the client to wait: a replaced connection or a collision is over in well under a second, and a
 * database that is away is asked again by each retry, so a short wait costs little either way.
 */
export const STORE_RETRY_AFTER_SECONDS = 1;

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const state = stateOf(res);
    const appError = toAppError(error, state, log, req.body);
    if (res.headersSent) {
      cutShort(res);
      return;
    }
    // Set for a result that then failed (a download whose first read threw, a body the validator refused): a problem
    // saved as `submissions.csv`, or pointing at a resource it did not make, would mislead.
    for (const name of resultHeaders) res.removeHeader(name);
    // A 429 says in its details how long to wait; the header says the same.
    const retryAfter = appError.code === 'service_unavailable' ? STORE_RETRY_AFTER_SECONDS : appError.details?.retry_after_seconds;
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    // If this problem breaks the contract (a status the operation does not declare, a body off its schema), the
    // response validator hands its verdict to the next error handler, `lastResort`; so does a throw from here.
    sendProblem(res, appError, state.requestId);
  };
}

/** Headers only a handler's result sets. */
const resultHeaders = ['content-disposition', 'location'];

/**
 * What an answer or a retry hint says about the response: the 500 that replaces it must not keep them (a
 * `Retry-After` on a failure that waiting does not cure, an `Allow` or an `ETag` of an answer not given).
 */
const answerHeaders = [...resultHeaders, 'retry-after', 'allow', 'etag', 'last-modified', 'idempotent-replayed'];

/**
 * The last error handler, for what `errorHandler` could not answer: a problem that broke the contract on its way
 * out, or anything thrown while it was written. It answers 500 `internal_error` as problem+json written directly
 * (not through `res.json`, which the response validator watches, so it cannot be refused in turn), logs the
 * cause with the request id, and never calls `next`: Express's own final handler would answer HTML with a stack
 * trace unless `NODE_ENV` is `production`. A response whose headers are already sent is cut short instead.
 */
export function lastResort(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const { requestId } = stateOf(res);
    // Nothing here may throw: a throw would take the request to Express's final handler after all.
    try {
      if (isValidatorError(error)) {
        log.error(
          { request_id: requestId, status: res.statusCode, violation: error.errors, message: error.message },
          'problem broke the contract',
        );
      } else {
        log.error({ request_id: requestId, err: error }, 'error handler failed');
      }
    } catch {
      // A log that cannot take the line must not cost the client its answer.
    }
    if (res.headersSent) {
      cutShort(res);
      return;
    }
    try {
      for (const name of answerHeaders) res.removeHeader(name);
      res
        .status(500)
        .type('application/problem+json')
        .send(JSON.stringify(problemBody(internalError(), requestId)));
    } catch {
      res.destroy();
    }
  };
}

/**
 * Headers, and perhaps part of a body, are on their way: nothing appended can make it a problem response, and a
 * download that simply ended would look complete. Cutting the connection tells the client it is broken.
 */
function cutShort(res: Response): void {
  if (!res.writableEnded) res.destroy();
}

export const unknownPath: RequestHandler = (req) => {
  throw routeNotFound(req.path);
};
