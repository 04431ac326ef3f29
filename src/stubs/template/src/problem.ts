/**
 * Every error leaves as application/problem+json (`type`, `code`, `status`, `title`, `message`, `request_id`,
 * optional `details`), built here and nowhere else. Codes are the contract's `ErrorCode` enum.
 */
import type { components } from './generated/openapi.js';

export type ErrorCode = components['schemas']['ErrorCode'];
export type ErrorType = components['schemas']['ErrorType'];
export type ValidationIssue = components['schemas']['ValidationIssue'];
export type ResponseIssue = components['schemas']['ResponseIssue'];
export type ProblemDetails = components['schemas']['ProblemDetails'];

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

/** An error a handler or the pipeline throws; the error handler turns it into the problem response. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ProblemDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function problemBody(error: ApiError, requestId: string): Record<string, unknown> {
  return {
    type: error.type,
    code: error.code,
    status: error.status,
    title: error.status === 400 ? 'Invalid request' : titles[error.type],
    message: error.message,
    request_id: requestId,
    ...(error.details ? { details: error.details } : {}),
  };
}

export const invalidApiKey = (message: string) => new ApiError(401, 'authentication_error', 'invalid_api_key', message);
export const insufficientScope = (needed: string) =>
  new ApiError(403, 'permission_error', 'insufficient_scope', `This operation needs a key with the ${needed} scope or above.`);
export const secretKeyNotAllowed = () =>
  new ApiError(
    403,
    'permission_error',
    'secret_key_not_allowed',
    'Public operations take a publishable key (svc_pub_…), never a secret key: a secret in a web page is readable by every visitor.',
  );
export const publishableKeyNotAllowed = () =>
  new ApiError(
    403,
    'permission_error',
    'publishable_key_not_allowed',
    'Publishable keys (svc_pub_…) reach only the public operations (/v1/public/…); use a secret API key.',
  );
export const routeNotFound = (path: string) => new ApiError(404, 'not_found', 'route_not_found', `No operation has the path ${path}.`);
export const methodNotAllowed = (method: string, allowed: readonly string[]) =>
  new ApiError(405, 'invalid_request', 'method_not_allowed', `${method} is not allowed here; see the Allow header.`, undefined, {
    Allow: allowed.join(', '),
  });
export const invalidJson = () => new ApiError(400, 'validation_error', 'invalid_json', 'The request body is not valid JSON.');
export const payloadTooLarge = () => new ApiError(413, 'invalid_request', 'payload_too_large', 'The request body is larger than 1 MiB.');
export const unsupportedMediaType = (expected: string) =>
  new ApiError(415, 'invalid_request', 'unsupported_media_type', `The request body must be ${expected}.`);
/** With `responseErrors`, the ways the server's own answer broke the contract (never sent in production). */
export const internalError = (responseErrors?: ResponseIssue[]) =>
  new ApiError(
    500,
    'server_error',
    'internal_error',
    'Something went wrong on our side. Retry with backoff; quote the request_id if it persists.',
    responseErrors?.length ? { response_errors: responseErrors.slice(0, 100) } : undefined,
  );

export function invalidParameters(issues: ValidationIssue[]): ApiError {
  const plural = issues.length === 1 ? '1 invalid value' : `${issues.length} invalid values`;
  return new ApiError(400, 'validation_error', 'invalid_parameters', `The request has ${plural}; see details.errors.`, { errors: issues });
}

/**
 * The body of a stub's answer. The contract does not declare 501: the production service never answers it, and a
 * client should not be taught to expect it. It exists only while a server is being written, so the dispatcher
 * sends it past the response validator (see app.ts); `type` and `code` are the ones the product reserves for it.
 */
export function notImplementedBody(operationId: string, requestId: string): Record<string, unknown> {
  return {
    type: 'server_error',
    code: 'not_implemented',
    status: 501,
    title: titles.server_error,
    message: `The operation ${operationId} is not implemented yet.`,
    request_id: requestId,
  };
}
