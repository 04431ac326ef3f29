/**
 * Proof of work for public submissions: challenges handed to pages, each bound to the publishable key that asked for
 * it, and solutions checked here, then spent by the submission they let through once it is stored (see
 * ../public/submissions.ts): a submission refused for its answers or its timing leaves its challenge unspent. A spent
 * challenge is recorded in the store until it expires, so a solution replayed to another process or machine is
 * refused as well.
 */
import type { Schema } from '../../contract.js';
import type { Principal } from '../access.js';
import { AppError, spamProtectionRefusal } from '../errors.js';
import type { Services } from '../services.js';
import { type ChallengeSecrets, checkSolution, issueChallenge, secretsOfKey } from './proof-of-work.js';

/** The secrets of the caller's publishable key's challenges. */
function secretsOf(services: Services, principal: Principal): ChallengeSecrets {
  if (!services.challengeSecrets) throw new Error('The app sets challengeSecrets; proof of work cannot run without them.');
  if (!principal.publishable) throw new Error('Challenges are issued and checked for publishable keys only.');
  return secretsOfKey(services.challengeSecrets, principal.publishable.key.id);
}

export async function createPublicChallenge(services: Services, principal: Principal): Promise<Schema<'Challenge'>> {
  const challenge = await issueChallenge(secretsOf(services, principal), services.now());
  return { object: 'challenge', parameters: challenge.parameters as Schema<'ChallengeParameters'>, signature: challenge.signature! };
}

const challengeHint = 'solve a new one from POST /public/challenges';

/** A solved challenge, not yet spent: what identifies it, until when. */
export interface SolvedChallenge {
  signature: string;
  expiresAt: string;
}

/** The challenge, when it solves one this key fetched and has not expired; otherwise the refusal that says why. */
async function checkedChallenge(
  services: Services,
  principal: Principal,
  encoded: string | undefined,
): Promise<SolvedChallenge | AppError> {
  if (encoded === undefined) {
    return spamProtectionRefusal(
      'challenge_required',
      'This form requires proof of work; solve a challenge from POST /public/challenges and send it as challenge.',
      { pointer: '/challenge', code: 'required', message: 'is required by this form' },
    );
  }
  const check = await checkSolution(secretsOf(services, principal), encoded, services.now());
  if (check.ok) return { signature: check.signature, expiresAt: check.expiresAt.toISOString() };
  const [code, message] =
    check.reason === 'expired'
      ? ['expired', 'has expired']
      : check.reason === 'malformed'
        ? ['malformed', 'is not a challenge solution']
        : ['wrong_solution', 'does not solve a challenge this key fetched'];
  return spamProtectionRefusal('challenge_invalid', `This challenge ${message}; ${challengeHint}.`, {
    pointer: '/challenge',
    code,
    message,
  });
}

/**
 * The challenge, when it solves one this key fetched and has not expired; anything else is 422 `challenge_required`
 * or `challenge_invalid`. Whether another submission spent it is found when this one spends it.
 */
export async function checkChallengeSolved(
  services: Services,
  principal: Principal,
  encoded: string | undefined,
): Promise<SolvedChallenge> {
  const checked = await checkedChallenge(services, principal, encoded);
  if (checked instanceof AppError) throw checked;
  return checked;
}

/** The challenge, when it solves one this key fetched and has not expired: what a caught submission spends. */
export async function solvedChallengeOf(
  services: Services,
  principal: Principal,
  encoded: string | undefined,
): Promise<SolvedChallenge | undefined> {
  const checked = await checkedChallenge(services, principal, encoded);
  return checked instanceof AppError ? undefined : checked;
}

/** 422 `challenge_invalid` for a challenge another submission spent first. */
export const challengeAlreadyUsed = () =>
  spamProtectionRefusal('challenge_invalid', `This challenge was already used; ${challengeHint}.`, {
    pointer: '/challenge',
    code: 'already_used',
    message: 'was already used',
  });
