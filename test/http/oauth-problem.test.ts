import { describe, expect, it } from 'vitest';
import { badRequest, invalidGrant as invalidGrantError, payloadTooLarge } from '../../src/domain/errors.js';
import { asOAuthProblem } from '../../src/http/oauth-problem.js';

const invalidGrant = invalidGrantError('The code is "used" \\ gone…');

describe('token endpoint problems', () => {
  it('when the error is invalid_grant, then it carries error invalid_grant and a description in the RFC 6749 character set', () => {
    const shaped = asOAuthProblem(invalidGrant, {});
    expect(shaped.extra).toEqual({ error: 'invalid_grant', error_description: "The code is 'used' / gone?" });
    expect(shaped).toMatchObject({ status: 400, code: 'invalid_grant', message: invalidGrant.message });
  });

  it('when the request failed validation, then it is invalid_request and keeps its details', () => {
    const issue = { location: 'body' as const, pointer: '/code_verifier', code: 'required', message: 'is required' };
    const shaped = asOAuthProblem(badRequest('invalid_parameters', 'The request has 1 invalid value; see details.errors.', [issue]), {
      grant_type: 'authorization_code',
    });
    expect(shaped.extra?.error).toBe('invalid_request');
    expect(shaped.details).toEqual({ errors: [issue] });
  });

  it('when grant_type names an unknown grant, then the validation failure becomes unsupported_grant_type', () => {
    const discriminator = {
      location: 'body' as const,
      pointer: '',
      code: 'discriminator',
      message: 'value of tag "grant_type" must be in oneOf',
    };
    const shaped = asOAuthProblem(badRequest('invalid_parameters', 'x', [discriminator]), { grant_type: 'client_credentials' });
    expect(shaped).toMatchObject({ status: 400, code: 'unsupported_grant_type', extra: { error: 'unsupported_grant_type' } });
  });

  it('when the error is not a 400 or 401, then it is left as the usual problem', () => {
    const tooLarge = payloadTooLarge(1024);
    expect(asOAuthProblem(tooLarge, undefined)).toBe(tooLarge);
  });
});
