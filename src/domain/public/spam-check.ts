/**
 * The spam protection hook of the public submission path: every public submission passes through it after its form
 * is found and before anything is validated or stored. `accept` lets it through; `discard` answers the page as if it
 * had been stored (an ordinary-looking 201) while nothing is stored or delivered. A refusal the page should see
 * (a missing proof of work, a submission faster than the form allows) is thrown as an AppError.
 *
 * In order: the honeypot (a bot is told nothing, whatever else it got wrong), the minimum completion time, then
 * the proof of work, last because accepting a solution uses it up.
 */
import type { Schema } from '../../contract.js';
import type { FormRecord } from '../../store/types.js';
import type { Principal } from '../access.js';
import { utcDayOf } from '../analytics/date-range.js';
import { assertChallengeSolved } from '../challenges/service.js';
import { spamProtectionRefusal } from '../errors.js';
import type { Services } from '../services.js';
import { completionShortfall, honeypotFilled } from '../spam-protection/rules.js';
import { verifyStartedToken } from './started-token.js';

export type SpamVerdict = 'accept' | 'discard';

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/**
 * On `accept`, the honeypot's (empty) answer has been taken out of `body.answers`: it answers no field of the form,
 * and the answers are checked against the form next.
 */
export async function checkSpamProtection(
  services: Services,
  principal: Principal,
  { form }: FormRecord,
  body: Schema<'PublicSubmissionCreate'>,
): Promise<SpamVerdict> {
  const settings = form.spam_protection;
  const honeypot = settings.honeypot_field;
  if (honeypot !== null && Object.hasOwn(body.answers, honeypot)) {
    const caught = honeypotFilled(body.answers[honeypot]);
    delete body.answers[honeypot];
    if (caught) {
      await services.store.spam.countSpam(form.id, principal.environment, utcDayOf(services.now()));
      return 'discard';
    }
  }
  if (settings.min_completion_seconds > 0) {
    const startedAt = body.started_token === undefined ? undefined : verifyStartedToken(principal, body.started_token, form.id);
    const { tookSeconds, shortBy } = completionShortfall(settings.min_completion_seconds, startedAt, services.now());
    if (shortBy > 0) {
      const least = plural(settings.min_completion_seconds, 'second');
      throw tookSeconds === null
        ? spamProtectionRefusal(
            'submitted_too_fast',
            `This form takes at least ${least} to fill in; send the started_token of GET /public/forms/${form.id} with it.`,
            {
              pointer: '/started_token',
              code: body.started_token === undefined ? 'required' : 'invalid',
              message: 'is needed to time the submission',
            },
          )
        : spamProtectionRefusal(
            'submitted_too_fast',
            `This form takes at least ${least} to fill in; this submission came ${plural(tookSeconds, 'second')} after the form was fetched.`,
            {
              pointer: '/started_token',
              code: 'too_fast',
              message: `came ${plural(tookSeconds, 'second')} after the form was fetched; at least ${settings.min_completion_seconds} are needed`,
            },
          );
    }
  }
  if (settings.proof_of_work) await assertChallengeSolved(services, body.challenge);
  return 'accept';
}
