/**
 * The spam protection hook of the public submission path: every public submission passes through it after its form
 * is found and before anything is validated or stored. `accept` lets it through; `discard` answers the page as if it
 * had been stored (an ordinary-looking 201) while nothing is stored or delivered. A refusal the page should see
 * (a missing proof of work, a submission faster than the form allows) is thrown as an AppError.
 *
 * In order: the minimum completion time, then the proof of work. A filled honeypot changes only the verdict: a
 * caught submission meets every check a real one meets, in the same order and with the same refusals (and its
 * caller checks its answers and spends its claims as a real one's), so that comparing a submission with its
 * honeypot filled and left empty tells a bot nothing until the point where a real one would be stored. Nothing is
 * spent here: the verdict names what the submission spends (its started token and its challenge, each accepted
 * once), and the caller spends it when the submission is stored (`spendOrRefuse`), so a submission refused for its
 * timing or its answers leaves both unspent.
 */
import type { Schema } from '../../contract.js';
import type { SpentClaims } from '../../store/spam-store.js';
import type { FormRecord } from '../../store/types.js';
import type { Principal } from '../access.js';
import { challengeAlreadyUsed, checkChallengeSolved } from '../challenges/service.js';
import { spamProtectionRefusal } from '../errors.js';
import { hashSecret } from '../keys/secret.js';
import type { Services } from '../services.js';
import { completionShortfall, honeypotFilled } from '../spam-protection/rules.js';
import { STARTED_TOKEN_LIFETIME_DAYS, startedTokenExpiryOf, verifyStartedToken } from './started-token.js';

/** What to do with the submission, and what it spends once its answers are found valid (a discarded one too). */
export interface SpamVerdict {
  verdict: 'accept' | 'discard';
  spends: SpentClaims;
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** A started token as the minimum completion time reads it: when the form was fetched and what spends it, or why not. */
type StartedToken = { startedAt: Date; claim: NonNullable<SpentClaims['startedToken']> } | { problem: 'required' | 'invalid' | 'expired' };

function readStartedToken(principal: Principal, token: string | undefined, formId: string, now: Date): StartedToken {
  if (token === undefined) return { problem: 'required' };
  const startedAt = verifyStartedToken(principal, token, formId);
  if (startedAt === undefined) return { problem: 'invalid' };
  const expiresAt = startedTokenExpiryOf(startedAt);
  if (expiresAt.getTime() <= now.getTime()) return { problem: 'expired' };
  return { startedAt, claim: { hash: hashSecret(token), expiresAt: expiresAt.toISOString() } };
}

/** 422 `submitted_too_fast` for a started token that does not time this submission; `code` says why. */
function untimed(formId: string, code: 'required' | 'invalid' | 'expired' | 'already_used', least: string) {
  const why = {
    required: 'is needed to time the submission',
    invalid: 'is needed to time the submission',
    expired: `has expired (${STARTED_TOKEN_LIFETIME_DAYS} days after the form was fetched)`,
    already_used: 'already timed another submission',
  }[code];
  return spamProtectionRefusal(
    'submitted_too_fast',
    `This form takes at least ${least} to fill in; send the started_token of a new GET /public/forms/${formId} with it.`,
    { pointer: '/started_token', code, message: why },
  );
}

/**
 * The honeypot's answer is taken out of `body.answers` whatever it holds: it answers no field of the form, and the
 * answers are checked against the form next, a caught submission's too.
 */
export async function checkSpamProtection(
  services: Services,
  principal: Principal,
  { form }: FormRecord,
  body: Schema<'PublicSubmissionCreate'>,
): Promise<SpamVerdict> {
  const settings = form.spam_protection;
  const now = services.now();
  const honeypot = settings.honeypot_field;
  let caught = false;
  if (honeypot !== null && Object.hasOwn(body.answers, honeypot)) {
    caught = honeypotFilled(body.answers[honeypot]);
    delete body.answers[honeypot];
  }
  let startedToken: SpentClaims['startedToken'];
  if (settings.min_completion_seconds > 0) {
    const started = readStartedToken(principal, body.started_token, form.id, now);
    const least = plural(settings.min_completion_seconds, 'second');
    if ('problem' in started) throw untimed(form.id, started.problem, least);
    const { tookSeconds, shortBy } = completionShortfall(settings.min_completion_seconds, started.startedAt, now);
    if (shortBy > 0) {
      throw spamProtectionRefusal(
        'submitted_too_fast',
        `This form takes at least ${least} to fill in; this submission came ${plural(tookSeconds!, 'second')} after the form was fetched.`,
        {
          pointer: '/started_token',
          code: 'too_fast',
          message: `came ${plural(tookSeconds!, 'second')} after the form was fetched; at least ${settings.min_completion_seconds} are needed`,
        },
      );
    }
    startedToken = started.claim;
  }
  const challenge = settings.proof_of_work ? await checkChallengeSolved(services, principal, body.challenge) : undefined;
  return { verdict: caught ? 'discard' : 'accept', spends: { challenge, startedToken } };
}

/**
 * Spends what an accepted submission carries, just before it is stored: all of it or, when another submission
 * spent one of them first, none, with the refusal that names it. Of submissions racing with one, exactly one wins.
 */
export async function spendOrRefuse(services: Services, form: Schema<'Form'>, spends: SpentClaims): Promise<void> {
  if (spends.challenge === undefined && spends.startedToken === undefined) return;
  const outcome = await services.store.spam.spend(spends);
  if (outcome === 'challenge_used') throw challengeAlreadyUsed();
  if (outcome === 'started_token_used') {
    throw untimed(form.id, 'already_used', plural(form.spam_protection.min_completion_seconds, 'second'));
  }
}
