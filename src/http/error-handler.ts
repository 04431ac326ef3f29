/**
 * The one place that turns any error into a response: application errors keep their status and code,
 * validator errors are translated (body-parser errors already are, in `request-body.ts`), a store that cannot
 * answer now is a 503 with `Retry-After`, and everything else is a 500 whose details go to the log only, never
 * to the client.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { ValidationIssue } from '../contract.js';
import { AppError, internalError, routeNotFound, serviceUnavailable } from '../domain/errors.js';
import { StoreUnavailable } from '../store/errors.js';
import { stateOf } from './locals.js';
import { sendProblem } from './problem.js';
import { fromValidatorError, isValidatorError } from './validation.js';

function toAppError(error: unknown, expectedMediaType: string, earlierIssues: readonly ValidationIssue[], log: Logger): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof StoreUnavailable) {
    log.warn({ err: error.cause ?? error, reason: error.reason }, 'store unavailable');
    return serviceUnavailable(STORE_RETRY_AFTER_SECONDS);
  }
  if (isValidatorError(error) && (error.status === 400 || error.status === 415)) {
    return fromValidatorError(error, expectedMediaType, earlierIssues);
  }
  // A 500 from the response validator means the server broke the contract: loud in the log.
  if (isValidatorError(error)) log.error({ violation: error.errors, message: error.message }, 'response broke the contract');
  else log.error({ err: error }, 'unhandled error');
  return internalError();
}

/**
 * What a 503 tells the client to wait: a replaced connection or a collision is over in well under a second, and a
 * database that is away is asked again by each retry, so a short wait costs little either way.
 */
export const STORE_RETRY_AFTER_SECONDS = 1;

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const state = stateOf(res);
    const appError = toAppError(error, state.operation?.requestMediaType ?? 'application/json', state.parameterIssues ?? [], log);
    if (res.headersSent) return;
    if (appError.code === 'service_unavailable') res.setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    sendProblem(res, appError, stateOf(res).requestId);
  };
}

export const unknownPath: RequestHandler = (req) => {
  throw routeNotFound(req.path);
};
