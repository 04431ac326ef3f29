/**
 * The one place that turns any error into a response: application errors keep their status and code,
 * validator errors are translated (body-parser errors already are, in `request-body.ts`), and everything
 * else is a 500 whose details go to the log only, never to the client.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { ValidationIssue } from '../contract.js';
import { AppError, internalError, routeNotFound } from '../domain/errors.js';
import { stateOf } from './locals.js';
import { sendProblem } from './problem.js';
import { fromValidatorError, isValidatorError } from './validation.js';

function toAppError(error: unknown, expectedMediaType: string, earlierIssues: readonly ValidationIssue[], log: Logger): AppError {
  if (error instanceof AppError) return error;
  if (isValidatorError(error) && (error.status === 400 || error.status === 415)) {
    return fromValidatorError(error, expectedMediaType, earlierIssues);
  }
  // A 500 from the response validator means the server broke the contract: loud in the log.
  if (isValidatorError(error)) log.error({ violation: error.errors, message: error.message }, 'response broke the contract');
  else log.error({ err: error }, 'unhandled error');
  return internalError();
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const state = stateOf(res);
    const appError = toAppError(error, state.operation?.requestMediaType ?? 'application/json', state.parameterIssues ?? [], log);
    if (res.headersSent) return;
    sendProblem(res, appError, stateOf(res).requestId);
  };
}

export const unknownPath: RequestHandler = (req) => {
  throw routeNotFound(req.path);
};
