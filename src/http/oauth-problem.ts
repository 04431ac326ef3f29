/**
 * Problems of the token endpoint carry RFC 6749 section 5.2's `error` and `error_description` beside the
 * usual `code` and `message` (OAuthProblem in the document): standard OAuth clients read the former,
 * everyone else the latter. This is the one table from one to the other; request validation failures
 * (found before any handler runs) pass through it too.
 */
import type { ErrorCode, Schema } from '../contract.js';
import { type AppError, badRequest, unsupportedGrantType, withExtraMembers } from '../domain/errors.js';

type OAuthErrorName = Schema<'OAuthProblem'>['error'];
type GrantType = Schema<'OAuthTokenRequest'>['grant_type'];

/** `Record<GrantType, …>` fails to compile when the document adds a grant type. */
const grantTypes: Record<GrantType, true> = { authorization_code: true, refresh_token: true };

const oauthErrors: Partial<Record<ErrorCode, OAuthErrorName>> = {
  invalid_parameters: 'invalid_request',
  invalid_grant: 'invalid_grant',
  unsupported_grant_type: 'unsupported_grant_type',
  invalid_client: 'invalid_client',
};

/**
 * The 400 and 401 of the token and revocation endpoints as OAuth problems; their other responses (403, 413, 415,
 * 429, 500) are the usual ones.
 */
export function asOAuthProblem(error: AppError, requestBody: unknown): AppError {
  if (error.status !== 400 && error.status !== 401) return error;
  const shaped = error.code === 'invalid_parameters' ? explainInvalidRequest(error, requestBody) : error;
  const name = oauthErrors[shaped.code] ?? (shaped.status === 401 ? 'invalid_client' : 'invalid_request');
  return withExtraMembers(shaped, { error: name, error_description: errorDescription(shaped.message) });
}

export const missingRequestBody = (): AppError =>
  badRequest('invalid_parameters', 'The request has no body; send the request form-encoded.', [
    { location: 'body', pointer: '', code: 'required', message: 'is required' },
  ]);

/**
 * The validator cannot choose a branch without a known `grant_type`: an unknown one is
 * `unsupported_grant_type` (RFC 6749 section 5.2), a missing one a missing parameter.
 */
function explainInvalidRequest(error: AppError, requestBody: unknown): AppError {
  const grantType =
    typeof requestBody === 'object' && requestBody !== null ? (requestBody as Record<string, unknown>).grant_type : undefined;
  if (typeof grantType === 'string' && grantType !== '' && !Object.hasOwn(grantTypes, grantType)) {
    return unsupportedGrantType(Object.keys(grantTypes));
  }
  if (!error.details?.errors?.some((issue) => issue.code === 'discriminator')) return error;
  // RFC 6749 section 3.2: a parameter without a value counts as omitted, and none may be sent twice.
  const missing = grantType === undefined || grantType === '';
  return badRequest('invalid_parameters', 'The request has 1 invalid value; see details.errors.', [
    missing
      ? { location: 'body', pointer: '/grant_type', code: 'required', message: 'is required' }
      : { location: 'body', pointer: '/grant_type', code: 'type', message: 'must be sent once, as a string' },
  ]);
}

/** RFC 6749's character set for `error_description`: printable ASCII without `"` and `\`. */
function errorDescription(message: string): string {
  return message
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/[^\x20-\x7E]/g, '?')
    .slice(0, 1000);
}
