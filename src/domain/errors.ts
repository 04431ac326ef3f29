/**
 * Typed application errors. Domain code throws these; the HTTP layer's single error handler turns any of
 * them into a problem response (status, `type`, `code`, `message`, `details`), so no domain module knows
 * about HTTP beyond the status number it asks for.
 */
import type { ErrorCode, ErrorType, ValidationIssue } from '../contract.js';
import type { ProblemDetails } from './schema-types.js';

/** `ProblemDetails.errors` has `maxItems: 100`; a longer list would break the response contract. */
export const MAX_REPORTED_ISSUES = 100;

export interface AppErrorInit {
  status: number;
  type: ErrorType;
  code: ErrorCode;
  message: string;
  details?: ProblemDetails;
  /** Top-level members an endpoint's problem adds beside the usual ones (the OAuth token endpoint's `error`). */
  extra?: Readonly<Record<string, string>>;
}

export class AppError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: ErrorCode;
  readonly details: ProblemDetails | undefined;
  readonly extra: Readonly<Record<string, string>> | undefined;

  constructor(init: AppErrorInit) {
    super(init.message);
    this.name = 'AppError';
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this.details = init.details;
    this.extra = init.extra;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** 404 `resource_not_found`: also for things the caller may not see, so existence is never revealed. */
export function notFound(resource: string, id: string): AppError {
  return new AppError({
    status: 404,
    type: 'not_found',
    code: 'resource_not_found',
    message: `No ${resource} ${id} exists, or this key cannot see it.`,
  });
}

/** 401 `invalid_api_key`: one code for every authentication failure, so callers learn nothing about keys. */
export function unauthorized(message = 'Send a valid API key as `Authorization: Bearer <key>`.'): AppError {
  return new AppError({ status: 401, type: 'authentication_error', code: 'invalid_api_key', message });
}

export function forbidden(code: ErrorCode, message: string, details?: ProblemDetails): AppError {
  return new AppError({ status: 403, type: 'permission_error', code, message, ...(details ? { details } : {}) });
}

export function conflict(code: ErrorCode, message: string, issues?: readonly ValidationIssue[]): AppError {
  return new AppError({
    status: 409,
    type: 'conflict_error',
    code,
    message,
    ...(issues ? { details: { errors: issues.slice(0, MAX_REPORTED_ISSUES) } } : {}),
  });
}

/** 400: the request does not match the schema (or is not JSON). */
export function badRequest(code: ErrorCode, message: string, issues?: readonly ValidationIssue[]): AppError {
  return new AppError({
    status: 400,
    type: 'validation_error',
    code,
    message: withTruncationNote(message, issues),
    ...(issues ? { details: { errors: issues.slice(0, MAX_REPORTED_ISSUES) } } : {}),
  });
}

/** 422: well-formed but semantically invalid (form definition, form logic, answers, an unacceptable value). */
export function unprocessable(code: ErrorCode, issues: readonly ValidationIssue[], message = defaultUnprocessableMessage(code)): AppError {
  return new AppError({
    status: 422,
    type: 'validation_error',
    code,
    message: withTruncationNote(message, issues),
    details: { errors: issues.slice(0, MAX_REPORTED_ISSUES) },
  });
}

/** 422 `invalid_value`: a well-formed value the service cannot accept (a past expiry, a private webhook URL). */
export function invalidValue(issues: readonly ValidationIssue[], message?: string): AppError {
  return message === undefined ? unprocessable('invalid_value', issues) : unprocessable('invalid_value', issues, message);
}

function defaultUnprocessableMessage(code: ErrorCode): string {
  switch (code) {
    case 'invalid_form':
      return 'The form definition is inconsistent; details.errors lists every issue.';
    case 'invalid_form_logic':
      return 'The form logic is invalid; details.errors lists every issue.';
    case 'invalid_answers':
      return 'The answers do not satisfy the form; details.errors lists every issue.';
    default:
      return 'The request is well-formed but cannot be accepted; details.errors lists every issue.';
  }
}

// Clients are told when the list was cut, so they do not mistake the first 100 issues for all of them.
function withTruncationNote(message: string, issues: readonly ValidationIssue[] | undefined): string {
  if (!issues || issues.length <= MAX_REPORTED_ISSUES) return message;
  return `${message} Only the first ${MAX_REPORTED_ISSUES} of ${issues.length} issues are listed.`;
}
