import { describe, expect, it } from 'vitest';
import type { ValidationIssue } from '../../src/contract.js';
import {
  AppError,
  badRequest,
  conflict,
  forbidden,
  internalError,
  invalidClient,
  invalidGrant,
  invalidValue,
  isAppError,
  MAX_REPORTED_ISSUES,
  methodNotAllowed,
  notFound,
  payloadTooLarge,
  rateLimited,
  routeNotFound,
  unauthorized,
  unprocessable,
  unsupportedGrantType,
  unsupportedMediaType,
  withExtraMembers,
} from '../../src/domain/errors.js';

const issue = (n: number): ValidationIssue => ({ location: 'body', pointer: `/steps/${n}/id`, code: 'duplicate_step_id', message: 'dup' });

describe('application errors', () => {
  it('when a resource is missing, then 404 not_found resource_not_found naming it', () => {
    const error = notFound('form', 'form_abc');
    expect(error).toBeInstanceOf(AppError);
    expect(error).toBeInstanceOf(Error);
    expect(isAppError(error)).toBe(true);
    expect({ status: error.status, type: error.type, code: error.code }).toEqual({
      status: 404,
      type: 'not_found',
      code: 'resource_not_found',
    });
    expect(error.message).toContain('form_abc');
    expect(error.details).toBeUndefined();
  });

  it('when authentication fails, then 401 authentication_error invalid_api_key', () => {
    expect(unauthorized()).toMatchObject({ status: 401, type: 'authentication_error', code: 'invalid_api_key' });
    expect(unauthorized('This API key has been revoked.').message).toBe('This API key has been revoked.');
  });

  it('when access is denied, then 403 permission_error with the given code and optional details', () => {
    expect(forbidden('live_resource', 'no')).toMatchObject({ status: 403, type: 'permission_error', code: 'live_resource' });
    expect(forbidden('plan_required', 'no', { required_plan: 'business' }).details).toEqual({ required_plan: 'business' });
    expect(forbidden('live_resource', 'no').details).toBeUndefined();
  });

  it('when a conflict carries issues, then 409 conflict_error with details.errors', () => {
    const error = conflict('slug_taken', 'taken', [issue(0)]);
    expect(error).toMatchObject({ status: 409, type: 'conflict_error', code: 'slug_taken' });
    expect(error.details).toEqual({ errors: [issue(0)] });
    expect(conflict('folder_not_empty', 'not empty').details).toBeUndefined();
  });

  it('when the request breaks the schema, then 400 validation_error with every issue', () => {
    const error = badRequest('invalid_parameters', 'bad', [issue(0), issue(1)]);
    expect(error).toMatchObject({ status: 400, type: 'validation_error', code: 'invalid_parameters', message: 'bad' });
    expect(error.details?.errors).toHaveLength(2);
  });

  it('when a definition is invalid, then 422 validation_error with the code and its issues', () => {
    const error = unprocessable('invalid_form', [issue(0)]);
    expect(error).toMatchObject({ status: 422, type: 'validation_error', code: 'invalid_form' });
    expect(error.message).toMatch(/details\.errors/);
    expect(error.details).toEqual({ errors: [issue(0)] });
  });

  it('when a value is unacceptable, then 422 invalid_value', () => {
    expect(invalidValue([issue(0)])).toMatchObject({ status: 422, code: 'invalid_value', details: { errors: [issue(0)] } });
    expect(invalidValue([issue(0)], 'custom').message).toBe('custom');
  });

  it('when there are more issues than the contract allows, then the first 100 are kept and the message says so', () => {
    const issues = Array.from({ length: 130 }, (_, n) => issue(n));
    const error = unprocessable('invalid_answers', issues);
    expect(error.details?.errors).toHaveLength(MAX_REPORTED_ISSUES);
    expect(error.details?.errors?.[0]).toEqual(issue(0));
    expect(error.message).toContain('first 100 of 130');
  });

  it('when no operation has the path, then 404 not_found route_not_found naming the path', () => {
    expect(routeNotFound('/v1/nothing')).toMatchObject({
      status: 404,
      type: 'not_found',
      code: 'route_not_found',
      message: 'No operation has the path /v1/nothing.',
    });
  });

  it('when a method is not allowed, then 405 invalid_request listing the allowed methods, with a hint for PUT', () => {
    const error = methodNotAllowed('PUT', ['GET', 'PATCH', 'DELETE']);
    expect(error).toMatchObject({ status: 405, type: 'invalid_request', code: 'method_not_allowed' });
    expect(error.message).toBe(
      'PUT is not allowed on this path. Allowed: GET, PATCH, DELETE. Update with PATCH; omitted fields are left unchanged.',
    );
    expect(error.details).toEqual({ allowed_methods: ['GET', 'PATCH', 'DELETE'] });
    expect(methodNotAllowed('POST', ['GET']).message).toBe('POST is not allowed on this path. Allowed: GET.');
  });

  it('when a body is too large or of another media type, then 413 or 415 invalid_request saying what is accepted', () => {
    expect(payloadTooLarge(1024)).toMatchObject({
      status: 413,
      type: 'invalid_request',
      code: 'payload_too_large',
      message: 'The request body is larger than 1024 bytes.',
      details: { max_body_bytes: 1024 },
    });
    expect(unsupportedMediaType('application/json')).toMatchObject({
      status: 415,
      type: 'invalid_request',
      code: 'unsupported_media_type',
      message: 'Send the request body as application/json.',
    });
  });

  it('when a limit is hit, then 429 rate_limit_error with the wait in the message and details', () => {
    expect(rateLimited('Too many', 1)).toMatchObject({
      status: 429,
      type: 'rate_limit_error',
      code: 'rate_limited',
      message: 'Too many; retry after 1 second.',
      details: { retry_after_seconds: 1 },
    });
    expect(rateLimited('Too many', 3).message).toBe('Too many; retry after 3 seconds.');
  });

  it('when something fails on the server, then 500 server_error internal_error with a generic message', () => {
    expect(internalError()).toMatchObject({ status: 500, type: 'server_error', code: 'internal_error' });
    expect(internalError().message).toMatch(/^Something went wrong on our side/);
  });

  it('when the token endpoint refuses a request, then invalid_client is 401 and invalid_grant and unsupported_grant_type are 400', () => {
    expect(invalidClient()).toMatchObject({ status: 401, type: 'authentication_error', code: 'invalid_client' });
    expect(invalidGrant('used')).toMatchObject({ status: 400, type: 'validation_error', code: 'invalid_grant', message: 'used' });
    expect(unsupportedGrantType(['a', 'b'])).toMatchObject({
      status: 400,
      code: 'unsupported_grant_type',
      message: 'grant_type must be a or b.',
    });
  });

  it('when an error gets extra members, then everything else is kept', () => {
    const error = badRequest('invalid_parameters', 'bad', [issue(0)]);
    const shaped = withExtraMembers(error, { error: 'invalid_request' });
    expect(shaped).toMatchObject({
      status: 400,
      type: 'validation_error',
      code: 'invalid_parameters',
      message: 'bad',
      extra: { error: 'invalid_request' },
    });
    expect(shaped.details).toEqual(error.details);
  });
});
