/**
 * Proof-of-work challenges in the ALTCHA v2 format, on `altcha-lib`. A challenge is signed with the server's HMAC
 * key, so the service keeps nothing until a solution is used. It is made in the library's deterministic mode: the
 * service picks the counter the solver must find and signs the key it leads to, so checking a solution costs one
 * HMAC instead of repeating the solver's work. The cost for a page is the counter: a browser tries a few tens of
 * thousands of SHA-256 keys (a second or so); a bot sending thousands of submissions pays that each time.
 */
import { createHmac, hkdfSync } from 'node:crypto';
import { type Challenge, createChallenge, randomInt, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';

/** A challenge expires this long after it is made; the `Challenge` schema says 10 minutes. */
export const CHALLENGE_LIFETIME_SECONDS = 10 * 60;

/** The counter a solver must reach lies in this range: the work asked of a page. */
const counterRange = { min: 5_000, max: 50_000 } as const;

/** The two HMAC secrets altcha-lib signs with (the challenge, the derived key), from the one configured key. */
export interface ChallengeSecrets {
  readonly challenge: string;
  readonly derivedKey: string;
}

/** Separate secrets for the two signatures, derived from the server's key so an operator configures one. */
export function challengeSecrets(hmacKey: string): ChallengeSecrets {
  const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', hmacKey, 'form-funnel challenges', purpose, 32)).toString('hex');
  return { challenge: derive('challenge signature'), derivedKey: derive('derived key signature') };
}

/**
 * The secrets of the challenges one publishable key asks for: a challenge signed with them verifies with them only,
 * so its solution is accepted from the key that fetched it (and so in its workspace and environment), no other.
 */
export function secretsOfKey(secrets: ChallengeSecrets, keyId: string): ChallengeSecrets {
  const bind = (secret: string) => createHmac('sha256', secret).update(keyId, 'utf8').digest('hex');
  return { challenge: bind(secrets.challenge), derivedKey: bind(secrets.derivedKey) };
}

export async function issueChallenge(secrets: ChallengeSecrets, now: Date): Promise<Challenge> {
  return createChallenge({
    algorithm: 'SHA-256',
    cost: 1,
    counter: randomInt(counterRange.min, counterRange.max),
    deriveKey,
    expiresAt: Math.floor(now.getTime() / 1000) + CHALLENGE_LIFETIME_SECONDS,
    hmacSignatureSecret: secrets.challenge,
    hmacKeySignatureSecret: secrets.derivedKey,
  });
}

/** A solution checked: accepted with what identifies its challenge, or why not. */
export type SolutionCheck = { ok: true; signature: string; expiresAt: Date } | { ok: false; reason: 'malformed' | 'expired' | 'wrong' };

interface Payload {
  challenge: Challenge;
  solution: { counter: number; derivedKey: string };
}

/** The Base64 JSON the ALTCHA widget sends, read without trusting any of it. */
function decodePayload(encoded: string): Payload | undefined {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { challenge, solution } = payload as Record<string, unknown>;
  if (typeof challenge !== 'object' || challenge === null || typeof solution !== 'object' || solution === null) return undefined;
  const { parameters, signature } = challenge as Record<string, unknown>;
  if (typeof parameters !== 'object' || parameters === null || typeof signature !== 'string') return undefined;
  const { expiresAt, algorithm } = parameters as Record<string, unknown>;
  // Only what this service issues: an unknown algorithm would make the library throw rather than refuse.
  if (algorithm !== 'SHA-256' || typeof expiresAt !== 'number') return undefined;
  return { challenge: { parameters, signature } as Challenge, solution: solution as Payload['solution'] };
}

/**
 * Checks a solution against the signature of its challenge and the key the service signed. Whether the challenge
 * was used before is not known here: the caller records each accepted `signature` until `expiresAt`.
 */
export async function checkSolution(secrets: ChallengeSecrets, encoded: string, now: Date): Promise<SolutionCheck> {
  const payload = decodePayload(encoded);
  if (!payload) return { ok: false, reason: 'malformed' };
  const expiresAtSeconds = payload.challenge.parameters.expiresAt!;
  const result = await verifySolution({
    challenge: payload.challenge,
    solution: payload.solution,
    deriveKey,
    hmacSignatureSecret: secrets.challenge,
    hmacKeySignatureSecret: secrets.derivedKey,
  });
  // The library reads the system clock; the service's clock decides too, so a test clock can expire a challenge.
  if (result.expired || expiresAtSeconds * 1000 <= now.getTime()) return { ok: false, reason: 'expired' };
  if (!result.verified) return { ok: false, reason: 'wrong' };
  return { ok: true, signature: payload.challenge.signature!, expiresAt: new Date(expiresAtSeconds * 1000) };
}
