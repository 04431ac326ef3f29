import { describe, expect, it } from 'vitest';
import type { ValidationIssue } from '../../src/contract.js';
import {
  AppError,
  badRequest,
  conflict,
  forbidden,
  invalidValue,
  isAppError,
  MAX_REPORTED_ISSUES,
  notFound,
  unauthorized,
  unprocessable,
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
});
