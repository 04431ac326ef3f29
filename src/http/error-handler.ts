/**
 * The one place that turns any error into a response: application errors keep their status and code,
 * validator and body-parser errors are translated, and everything else is a 500 whose details go to the
 * log only, never to the client.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError, badRequest, internalError, payloadTooLarge, routeNotFound, unsupportedMediaType } from '../domain/errors.js';
import { maxBodyBytes } from './documented-limits.js';
import { stateOf } from './locals.js';
import { sendProblem } from './problem.js';
import { fromValidatorError, isValidatorError } from './validation.js';

function toAppError(error: unknown, expectedMediaType: string, log: Logger): AppError {
  if (error instanceof AppError) return error;
  const type = typeof error === 'object' && error !== null ? (error as { type?: unknown }).type : undefined;
  if (type === 'entity.parse.failed') return badRequest('invalid_json', 'The request body is not valid JSON.');
  if (type === 'entity.too.large') return payloadTooLarge(maxBodyBytes);
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return unsupportedMediaType(`${expectedMediaType} in UTF-8`);
  if (isValidatorError(error) && (error.status === 400 || error.status === 415)) return fromValidatorError(error, expectedMediaType);
  // A 500 from the response validator means the server broke the contract: loud in the log.
  if (isValidatorError(error)) log.error({ violation: error.errors, message: error.message }, 'response broke the contract');
  else log.error({ err: error }, 'unhandled error');
  return internalError();
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const appError = toAppError(error, stateOf(res).operation?.requestMediaType ?? 'application/json', log);
    if (res.headersSent) return;
    sendProblem(res, appError, stateOf(res).requestId);
  };
}

export const unknownPath: RequestHandler = (req) => {
  throw routeNotFound(req.path);
};
