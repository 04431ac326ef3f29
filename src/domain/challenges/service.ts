/**
 * Proof of work for public submissions: challenges handed to pages, and solutions accepted once each. A used
 * challenge is recorded in the store until it expires, so a solution replayed to another process or machine is
 * refused as well.
 */
import type { Schema } from '../../contract.js';
import { spamProtectionRefusal } from '../errors.js';
import type { Services } from '../services.js';
import { type ChallengeSecrets, checkSolution, issueChallenge } from './proof-of-work.js';

function secretsOf(services: Services): ChallengeSecrets {
  if (!services.challengeSecrets) throw new Error('The app sets challengeSecrets; proof of work cannot run without them.');
  return services.challengeSecrets;
}

export async function createPublicChallenge(services: Services): Promise<Schema<'Challenge'>> {
  const challenge = await issueChallenge(secretsOf(services), services.now());
  return { object: 'challenge', parameters: challenge.parameters as Schema<'ChallengeParameters'>, signature: challenge.signature! };
}

const challengeHint = 'solve a new one from POST /public/challenges';

/** Accepts a solved challenge once; anything else is 422 `challenge_required` or `challenge_invalid`. */
export async function assertChallengeSolved(services: Services, encoded: string | undefined): Promise<void> {
  if (encoded === undefined) {
    throw spamProtectionRefusal(
      'challenge_required',
      'This form requires proof of work; solve a challenge from POST /public/challenges and send it as challenge.',
      { pointer: '/challenge', code: 'required', message: 'is required by this form' },
    );
  }
  const check = await checkSolution(secretsOf(services), encoded, services.now());
  if (!check.ok) {
    const [code, message] =
      check.reason === 'expired'
        ? ['expired', 'has expired']
        : check.reason === 'malformed'
          ? ['malformed', 'is not a challenge solution']
          : ['wrong_solution', 'does not solve a challenge of this service'];
    throw spamProtectionRefusal('challenge_invalid', `This challenge ${message}; ${challengeHint}.`, {
      pointer: '/challenge',
      code,
      message,
    });
  }
  if (!(await services.store.spam.claimChallenge(check.signature, check.expiresAt.toISOString()))) {
    throw spamProtectionRefusal('challenge_invalid', `This challenge was already used; ${challengeHint}.`, {
      pointer: '/challenge',
      code: 'already_used',
      message: 'was already used',
    });
  }
}
