import { describe, expect, it } from 'vitest';
import { codeChallengePattern, s256Challenge, verifierMatchesChallenge } from '../../src/domain/oauth/pkce.js';

// RFC 7636 appendix B.
const rfcVerifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const rfcChallenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('PKCE S256', () => {
  it('when the verifier of RFC 7636 appendix B is hashed, then it gives the challenge of the appendix', () => {
    expect(s256Challenge(rfcVerifier)).toBe(rfcChallenge);
    expect(rfcChallenge).toMatch(codeChallengePattern);
  });

  it('when the verifier matches the challenge, then it is accepted', () => {
    expect(verifierMatchesChallenge(rfcVerifier, rfcChallenge)).toBe(true);
  });

  it('when the verifier differs by one character, then it is refused', () => {
    expect(verifierMatchesChallenge(`${rfcVerifier.slice(0, -1)}j`, rfcChallenge)).toBe(false);
  });

  it('when the challenge itself is sent as the verifier (a plain-method downgrade), then it is refused', () => {
    expect(verifierMatchesChallenge(rfcChallenge, rfcChallenge)).toBe(false);
  });

  it('when the verifier is shorter than 43 or has characters outside the unreserved set, then it is refused before hashing', () => {
    const short = 'a'.repeat(42);
    expect(verifierMatchesChallenge(short, s256Challenge(short))).toBe(false);
    const spaced = `${'a'.repeat(43)} `;
    expect(verifierMatchesChallenge(spaced, s256Challenge(spaced))).toBe(false);
  });

  it('when the stored challenge has another length, then the comparison is false, not an exception', () => {
    expect(verifierMatchesChallenge(rfcVerifier, 'short')).toBe(false);
  });
});
