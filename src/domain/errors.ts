/**
 * Typed application errors. Domain code throws these; the HTTP layer's single error handler turns any of
 * them into a problem response (status, `type`, `code`, `message`, `details`). An error is built by naming
 * its code: the status and type follow from the code through one table, the document's `ErrorCode` table
 * (test/domain/spec-sync.test.ts compares the two), so a status cannot disagree with its type or code.
 * Every error the service raises has a factory below; nothing else builds an `AppError`.
 */
import type { ErrorCode, ErrorType, ValidationIssue } from '../contract.js';
import type { ProblemDetails } from './schema-types.js';

/** `ProblemDetails.errors` has `maxItems: 100`; a longer list would break the response contract. */
export const MAX_REPORTED_ISSUES = 100;

/** Status and type of every code, as the `ErrorCode` description lists them; a new code fails to compile here. */
export const errorClasses = {
  invalid_api_key: { status: 401, type: 'authentication_error' },
  insufficient_scope: { status: 403, type: 'permission_error' },
  ip_not_allowed: { status: 403, type: 'permission_error' },
  form_not_attached: { status: 403, type: 'permission_error' },
  live_resource: { status: 403, type: 'permission_error' },
  plan_required: { status: 403, type: 'permission_error' },
  https_required: { status: 403, type: 'permission_error' },
  api_key_required: { status: 403, type: 'permission_error' },
  publishable_key_not_allowed: { status: 403, type: 'permission_error' },
  secret_key_not_allowed: { status: 403, type: 'permission_error' },
  origin_not_allowed: { status: 403, type: 'permission_error' },
  invalid_resume_token: { status: 403, type: 'permission_error' },
  resource_not_found: { status: 404, type: 'not_found' },
  route_not_found: { status: 404, type: 'not_found' },
  method_not_allowed: { status: 405, type: 'invalid_request' },
  payload_too_large: { status: 413, type: 'invalid_request' },
  not_acceptable: { status: 406, type: 'invalid_request' },
  unsupported_media_type: { status: 415, type: 'invalid_request' },
  slug_taken: { status: 409, type: 'conflict_error' },
  transfer_pending: { status: 409, type: 'conflict_error' },
  transfer_not_pending: { status: 409, type: 'conflict_error' },
  idempotency_conflict: { status: 409, type: 'conflict_error' },
  idempotency_key_erased: { status: 409, type: 'conflict_error' },
  folder_not_empty: { status: 409, type: 'conflict_error' },
  member_exists: { status: 409, type: 'conflict_error' },
  invite_closed: { status: 409, type: 'conflict_error' },
  last_admin: { status: 409, type: 'conflict_error' },
  submission_completed: { status: 409, type: 'conflict_error' },
  key_revoked: { status: 409, type: 'conflict_error' },
  form_version_unavailable: { status: 409, type: 'conflict_error' },
  rescore_in_progress: { status: 409, type: 'conflict_error' },
  precondition_failed: { status: 412, type: 'conflict_error' },
  invalid_json: { status: 400, type: 'validation_error' },
  invalid_parameters: { status: 400, type: 'validation_error' },
  invalid_cursor: { status: 400, type: 'validation_error' },
  invalid_form: { status: 422, type: 'validation_error' },
  form_too_large: { status: 422, type: 'validation_error' },
  invalid_form_logic: { status: 422, type: 'validation_error' },
  invalid_image: { status: 422, type: 'validation_error' },
  invalid_answers: { status: 422, type: 'validation_error' },
  invalid_value: { status: 422, type: 'validation_error' },
  challenge_required: { status: 422, type: 'validation_error' },
  challenge_invalid: { status: 422, type: 'validation_error' },
  submitted_too_fast: { status: 422, type: 'validation_error' },
  search_too_broad: { status: 422, type: 'validation_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  too_many_exports: { status: 429, type: 'rate_limit_error' },
  too_many_searches: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'server_error' },
  service_unavailable: { status: 503, type: 'server_error' },
  invalid_grant: { status: 400, type: 'validation_error' },
  invalid_client: { status: 401, type: 'authentication_error' },
  unsupported_grant_type: { status: 400, type: 'validation_error' },
} as const satisfies Record<ErrorCode, { status: number; type: ErrorType }>;

type ErrorClasses = typeof errorClasses;
/** The codes of one type (and status): `forbidden` takes only permission codes, `unprocessable` only 422 ones. */
type CodeOf<Type extends ErrorType, Status extends number = number> = {
  [Code in ErrorCode]: ErrorClasses[Code] extends { type: Type; status: Status } ? Code : never;
}[ErrorCode];

/** The methods a path can have, as `ProblemDetails.allowed_methods` lists them. */
export type HttpMethod = NonNullable<ProblemDetails['allowed_methods']>[number];

interface AppErrorInit {
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
    this.status = errorClasses[init.code].status;
    this.type = errorClasses[init.code].type;
    this.code = init.code;
    this.details = init.details;
    this.extra = init.extra;
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** The same error with members of the endpoint's own problem shape beside the usual ones. */
export function withExtraMembers(error: AppError, extra: Readonly<Record<string, string>>): AppError {
  return new AppError({ code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}), extra });
}

/** 404 `resource_not_found`: also for things the caller may not see, so existence is never revealed. */
export function notFound(resource: string, id: string, message = `No ${resource} ${id} exists, or this key cannot see it.`): AppError {
  return new AppError({ code: 'resource_not_found', message });
}

/** 404 `route_not_found`: no operation of the document has this path. */
export function routeNotFound(path: string): AppError {
  return new AppError({ code: 'route_not_found', message: `No operation has the path ${path}.` });
}

/** 405 `method_not_allowed`; the caller also sets the `Allow` header to the same methods. */
export function methodNotAllowed(method: string, allowed: readonly HttpMethod[]): AppError {
  const hint = method === 'PUT' && allowed.includes('PATCH') ? ' Update with PATCH; omitted fields are left unchanged.' : '';
  return new AppError({
    code: 'method_not_allowed',
    message: `${method} is not allowed on this path. Allowed: ${allowed.join(', ')}.${hint}`,
    details: { allowed_methods: [...allowed] },
  });
}

/** 413 `payload_too_large`. */
export function payloadTooLarge(maxBodyBytes: number): AppError {
  return new AppError({
    code: 'payload_too_large',
    message: `The request body is larger than ${maxBodyBytes} bytes.`,
    details: { max_body_bytes: maxBodyBytes },
  });
}

/** 406 `not_acceptable`: the `Accept` header allows none of the media types the operation answers with. */
export function notAcceptable(offered: readonly string[]): AppError {
  return new AppError({
    code: 'not_acceptable',
    message:
      `This operation answers ${offered.join(' or ')}; the Accept header allows none of them. ` +
      `Send Accept: ${offered.at(-1)}, or the format parameter.`,
  });
}

/** 415 `unsupported_media_type`: the body's media type (or its charset or encoding) is not the one the operation takes. */
export function unsupportedMediaType(expected: string): AppError {
  return new AppError({ code: 'unsupported_media_type', message: `Send the request body as ${expected}.` });
}

/**
 * 401 `invalid_api_key`: one status, type and code for every authentication failure. The default message is
 * for a missing, malformed or unknown key; a revoked or expired one gets its own message (see authenticate.ts).
 */
export function unauthorized(message = 'Send a valid API key as `Authorization: Bearer <key>`.'): AppError {
  return new AppError({ code: 'invalid_api_key', message });
}

/** 401 `invalid_client`: public OAuth clients are identified by `client_id` alone, so the only failure is an unknown one. */
export function invalidClient(message = 'No registered client has this client_id.'): AppError {
  return new AppError({ code: 'invalid_client', message });
}

/** 400 `invalid_grant`: an authorization code, verifier or refresh token the token endpoint cannot accept. */
export function invalidGrant(message: string): AppError {
  return new AppError({ code: 'invalid_grant', message });
}

/** 400 `unsupported_grant_type`. */
export function unsupportedGrantType(supported: readonly string[]): AppError {
  return new AppError({ code: 'unsupported_grant_type', message: `grant_type must be ${supported.join(' or ')}.` });
}

export function forbidden(code: CodeOf<'permission_error'>, message: string, details?: ProblemDetails): AppError {
  return new AppError({ code, message, ...(details ? { details } : {}) });
}

export function conflict(code: CodeOf<'conflict_error'>, message: string, issues?: readonly ValidationIssue[]): AppError {
  return new AppError({ code, message, ...(issues ? { details: { errors: issues.slice(0, MAX_REPORTED_ISSUES) } } : {}) });
}

/** 412 `precondition_failed`: the `If-Match` names no current entity tag of the resource; nothing was changed. */
export function preconditionFailed(resource: string, id: string): AppError {
  return new AppError({
    code: 'precondition_failed',
    message:
      `The ${resource} ${id} has changed since the ETag you sent was read, or If-Match named no current ETag of it; ` +
      'nothing was changed. Read it again and retry.',
  });
}

/** 400: the request does not match the schema (or is not JSON). */
export function badRequest(code: CodeOf<'validation_error', 400>, message: string, issues?: readonly ValidationIssue[]): AppError {
  return new AppError({
    code,
    message: withTruncationNote(message, issues),
    ...(issues ? { details: { errors: issues.slice(0, MAX_REPORTED_ISSUES) } } : {}),
  });
}

/** 422: well-formed but semantically invalid (form definition, form logic, answers, an unacceptable value). */
export function unprocessable(
  code: CodeOf<'validation_error', 422>,
  issues: readonly ValidationIssue[],
  message = defaultUnprocessableMessage(code),
): AppError {
  return new AppError({
    code,
    message: withTruncationNote(message, issues),
    details: { errors: issues.slice(0, MAX_REPORTED_ISSUES) },
  });
}

/** 422 `invalid_value`: a well-formed value the service cannot accept (a past expiry, a private webhook URL). */
export function invalidValue(issues: readonly ValidationIssue[], message?: string): AppError {
  return message === undefined ? unprocessable('invalid_value', issues) : unprocessable('invalid_value', issues, message);
}

/** 422 from a form's spam protection: one issue, on the body member that failed (`/challenge`, `/started_token`). */
export function spamProtectionRefusal(
  code: 'challenge_required' | 'challenge_invalid' | 'submitted_too_fast',
  message: string,
  issue: { pointer: string; code: string; message: string },
): AppError {
  return unprocessable(code, [{ location: 'body', ...issue }], message);
}

/** 429: `reason` names the limit; the error handler sets `Retry-After` to the same seconds. */
export function rateLimited(reason: string, retryAfterSeconds: number, code: CodeOf<'rate_limit_error'> = 'rate_limited'): AppError {
  return new AppError({
    code,
    message: `${reason}; retry after ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`,
    details: { retry_after_seconds: retryAfterSeconds },
  });
}

/** 503 `service_unavailable`: the store could not answer (its database away, or too busy); the caller also sets `Retry-After`. */
export function serviceUnavailable(retryAfterSeconds: number): AppError {
  return new AppError({
    code: 'service_unavailable',
    message:
      'The service cannot reach its database right now; ' + `retry after ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`,
  });
}

/** 500 `internal_error`: what went wrong goes to the log, never to the client. */
export function internalError(): AppError {
  return new AppError({
    code: 'internal_error',
    message: 'Something went wrong on our side. Retry with backoff; quote the request_id if it persists.',
  });
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
