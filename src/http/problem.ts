import type { Response } from 'express';
import type { ErrorType } from '../contract.js';
import type { AppError } from '../domain/errors.js';
import type { OperationId } from './handlers/types.js';
import { stateOf } from './locals.js';
import { asOAuthProblem } from './oauth-problem.js';

const titles: Record<ErrorType, string> = {
  authentication_error: 'Authentication failed',
  permission_error: 'Permission denied',
  not_found: 'Not found',
  invalid_request: 'Invalid request',
  conflict_error: 'Conflict',
  validation_error: 'Validation failed',
  rate_limit_error: 'Too many requests',
  server_error: 'Server error',
};

export function problemBody(error: AppError, requestId: string): Record<string, unknown> {
  return {
    type: error.type,
    code: error.code,
    status: error.status,
    title: error.status === 400 ? 'Invalid request' : titles[error.type],
    message: error.message,
    request_id: requestId,
    ...(error.details ? { details: error.details } : {}),
    ...error.extra,
  };
}

/** Operations whose problems have a shape of their own in the document, whichever stage failed. */
const problemShapes: Partial<Record<OperationId, (error: AppError, requestBody: unknown) => AppError>> = {
  createOAuthToken: asOAuthProblem,
  revokeOAuthToken: asOAuthProblem,
};

/** The only way an error reaches a client: problem+json with the request id, never internals. */
export function sendProblem(res: Response, error: AppError, requestId: string): void {
  const operation = stateOf(res).operation;
  const shape = operation && problemShapes[operation.operationId];
  const shaped = shape ? shape(error, res.req.body) : error;
  // res.json (not send) so the response validator checks error bodies against the contract too.
  res.status(shaped.status).type('application/problem+json').json(problemBody(shaped, requestId));
}
