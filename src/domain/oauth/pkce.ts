/**
 * PKCE (RFC 7636) with the S256 method only: `plain` would send the verifier itself through the browser,
 * which is what PKCE exists to avoid, so it is refused at authorization.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 section 4.1: 43 to 128 unreserved characters. */
export const codeVerifierPattern = /^[A-Za-z0-9._~-]{43,128}$/;

/** An S256 challenge is the unpadded base64url of a SHA-256 digest: always 43 characters. */
export const codeChallengePattern = /^[A-Za-z0-9_-]{43}$/;

export const supportedChallengeMethods = ['S256'] as const;

/** `BASE64URL-ENCODE(SHA256(ASCII(code_verifier)))`, RFC 7636 section 4.2. */
export const s256Challenge = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** Whether the verifier hashes to the challenge, compared in constant time. */
export function verifierMatchesChallenge(verifier: string, challenge: string): boolean {
  if (!codeVerifierPattern.test(verifier)) return false;
  const expected = Buffer.from(challenge, 'ascii');
  const actual = Buffer.from(s256Challenge(verifier), 'ascii');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
