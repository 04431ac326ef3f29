import { describe, expect, it } from 'vitest';
import { secretPattern } from '../../src/domain/keys/secret.js';
import {
  authorizationCodePattern,
  generateAccessToken,
  generateAuthorizationCode,
  generateRefreshToken,
  refreshTokenPattern,
} from '../../src/domain/oauth/secrets.js';

const body = 'A'.repeat(40);

describe('OAuth secrets', () => {
  it('when codes and tokens are generated, then each has its own prefix and 40 base62 characters', () => {
    expect(generateAuthorizationCode()).toMatch(authorizationCodePattern);
    expect(generateRefreshToken()).toMatch(refreshTokenPattern);
    expect(generateAccessToken()).toMatch(/^svc_oat_[0-9A-Za-z]{40}$/);
  });

  it.each([
    ['an authorization code', authorizationCodePattern, 'svc_oac_'],
    ['a refresh token', refreshTokenPattern, 'svc_ort_'],
  ])('when %s is checked, then only the whole prefixed 40-character value matches', (_what, pattern, prefix) => {
    expect(pattern.test(`${prefix}${body}`)).toBe(true);
    expect(pattern.test(`x${prefix}${body}`)).toBe(false);
    expect(pattern.test(`${prefix}${body}x`)).toBe(false);
    expect(pattern.test(`${prefix}${body.slice(1)}`)).toBe(false);
    expect(pattern.test(`${prefix}${'-'.repeat(40)}`)).toBe(false);
  });
});

describe('API key secrets', () => {
  it('when a value is checked, then only a whole svc_live_/svc_test_ secret of 32 to 64 base62 characters matches', () => {
    expect(secretPattern.test(`svc_live_${'a'.repeat(32)}`)).toBe(true);
    expect(secretPattern.test(`svc_test_${'a'.repeat(64)}`)).toBe(true);
    expect(secretPattern.test(`xsvc_live_${'a'.repeat(40)}`)).toBe(false);
    expect(secretPattern.test(`svc_live_${'a'.repeat(40)} `)).toBe(false);
    expect(secretPattern.test(`svc_live_${'a'.repeat(31)}`)).toBe(false);
    expect(secretPattern.test(`svc_live_${'a'.repeat(65)}`)).toBe(false);
  });
});
