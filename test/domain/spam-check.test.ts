/**
 * The spam checks of a public submission, on a fake store: their order (the time, then the proof of work, a caught
 * submission's as a real one's), what each refusal names, and what an accepted or a caught submission spends. Nothing is spent by
 * the checks themselves: the verdict names it, and `spendOrRefuse` spends it when the submission is stored.
 */
import { createHmac } from 'node:crypto';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { describe, expect, it } from 'vitest';
import type { Schema } from '../../src/contract.js';
import type { Principal } from '../../src/domain/access.js';
import { challengeSecrets, issueChallenge, secretsOfKey } from '../../src/domain/challenges/proof-of-work.js';
import { createPublicChallenge } from '../../src/domain/challenges/service.js';
import { AppError } from '../../src/domain/errors.js';
import { hashSecret } from '../../src/domain/keys/secret.js';
import { checkSpamProtection, spendOrRefuse } from '../../src/domain/public/spam-check.js';
import { issueStartedToken, STARTED_TOKEN_LIFETIME_DAYS, verifyStartedToken } from '../../src/domain/public/started-token.js';
import type { Services } from '../../src/domain/services.js';
import type { SpendOutcome, SpentClaims } from '../../src/store/spam-store.js';
import type { FormRecord } from '../../src/store/types.js';

const formId = 'form_2kTz9QwErTy7UiOp4AsDfGhJ';
// Challenges expire by the system clock too (altcha-lib reads it), so the form is fetched now.
const fetchedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
const later = (seconds: number) => new Date(fetchedAt.getTime() + seconds * 1000);
const secrets = challengeSecrets('a test key that is long enough to sign challenges');
const principal = {
  environment: 'live',
  workspace: { id: 'ws_1' },
  publishable: { key: { id: 'pk_own' }, tokenSecret: Buffer.alloc(32, 3), hostedPage: false },
} as unknown as Principal;

/** Services whose only store is a spam store that records what it is asked and answers `outcome` to a spend. */
function servicesAt(now: Date, outcome: SpendOutcome = 'spent') {
  const spent: SpentClaims[] = [];
  const counted: string[] = [];
  const services = {
    now: () => now,
    challengeSecrets: secrets,
    store: {
      spam: {
        async spend(claims: SpentClaims) {
          spent.push(claims);
          return outcome;
        },
        async countSpam(form: string, environment: string, day: string) {
          counted.push(`${form} ${environment} ${day}`);
        },
      },
    },
  } as unknown as Services;
  return { services, spent, counted };
}

const formWith = (spam_protection: Partial<Schema<'SpamProtection'>>): FormRecord =>
  ({
    form: { id: formId, spam_protection: { honeypot_field: null, min_completion_seconds: 0, proof_of_work: false, ...spam_protection } },
  }) as FormRecord;

/** The page's started token, issued when a test asks: a mutant of the issuing code then fails tests, not the file's import. */
/**
 * The one token this file's page fetched (each issue draws a new nonce), issued by the first test that asks, so a
 * mutant of the issuing code fails tests instead of the file's import.
 */
let fetchedTokenValue: string | undefined;
const fetchedToken = (): string => {
  fetchedTokenValue ??= issueStartedToken(principal, formId, fetchedAt);
  return fetchedTokenValue;
};
const body = (extra: Partial<Schema<'PublicSubmissionCreate'>> = {}): Schema<'PublicSubmissionCreate'> => ({
  form_id: formId,
  answers: { email: 'tom@brightdesk.example' },
  status: 'partial',
  ...extra,
});

/** A challenge of `keyId`'s, solved as a page does. */
async function solvedFor(keyId: string, now: Date): Promise<{ encoded: string; signature: string; expiresAt: string }> {
  const challenge = await issueChallenge(secretsOfKey(secrets, keyId), now);
  const solution = await solveChallenge({ challenge, deriveKey });
  const encoded = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
  return { encoded, signature: challenge.signature!, expiresAt: new Date(challenge.parameters.expiresAt! * 1000).toISOString() };
}

/** The message of the refusal `promise` rejects with. */
const refusalMessage = (promise: Promise<unknown>): Promise<string | undefined> =>
  promise.then(
    () => undefined,
    (error: AppError) => error.message,
  );

/** The refusal `promise` rejects with, as `code: pointer issue`. */
async function refusalOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  expect(error).toBeInstanceOf(AppError);
  const { code, details } = error as AppError;
  const issues = (details as { errors: Array<{ pointer: string; code: string }> }).errors;
  return `${code}: ${issues.map((issue) => `${issue.pointer} ${issue.code}`).join(', ')}`;
}

const startedClaim = (token: string, issuedAt: Date) => ({
  hash: hashSecret(token),
  expiresAt: new Date(issuedAt.getTime() + STARTED_TOKEN_LIFETIME_DAYS * 86_400_000).toISOString(),
});

describe('the minimum completion time', () => {
  const timed = formWith({ min_completion_seconds: 5 });

  it('when the started token is missing, altered or for another form, then 422 submitted_too_fast names why', async () => {
    const { services } = servicesAt(later(60));
    expect(await refusalOf(checkSpamProtection(services, principal, timed, body()))).toBe('submitted_too_fast: /started_token required');
    // The signature's first character, whose six bits all count (the last one's low bits are padding).
    const altered = fetchedToken().replace(
      /\.([^.])([^.]*)$/,
      (_all, first: string, rest: string) => `.${first === 'A' ? 'B' : 'A'}${rest}`,
    );
    expect(await refusalOf(checkSpamProtection(services, principal, timed, body({ started_token: altered })))).toBe(
      'submitted_too_fast: /started_token invalid',
    );
    for (const malformed of ['not a token', `x${fetchedToken()}`, `${fetchedToken()}x`]) {
      expect(await refusalOf(checkSpamProtection(services, principal, timed, body({ started_token: malformed })))).toBe(
        'submitted_too_fast: /started_token invalid',
      );
    }
    const backdated = fetchedToken().replace(/^\d{13}/, String(fetchedAt.getTime() - 3_600_000));
    expect(await refusalOf(checkSpamProtection(services, principal, timed, body({ started_token: backdated })))).toBe(
      'submitted_too_fast: /started_token invalid',
    );
    const otherForm = issueStartedToken(principal, 'form_AAAAAAAAAAAAAAAAAAAAAAAA', fetchedAt);
    expect(await refusalOf(checkSpamProtection(services, principal, timed, body({ started_token: otherForm })))).toBe(
      'submitted_too_fast: /started_token invalid',
    );
  });

  it('when the submission comes too soon, then the message says how soon and how long the form takes', async () => {
    const tooFast = async (seconds: number, form = timed) =>
      checkSpamProtection(servicesAt(later(seconds)).services, principal, form, body({ started_token: fetchedToken() })).then(
        () => undefined,
        (error: AppError) => [error.message, (error.details as { errors: Array<{ message: string }> }).errors[0]!.message],
      );
    expect(await tooFast(1)).toEqual([
      'This form takes at least 5 seconds to fill in; this submission came 1 second after the form was fetched.',
      'came 1 second after the form was fetched; at least 5 are needed',
    ]);
    expect(await tooFast(0.5, formWith({ min_completion_seconds: 1 }))).toEqual([
      'This form takes at least 1 second to fill in; this submission came 0 seconds after the form was fetched.',
      'came 0 seconds after the form was fetched; at least 1 are needed',
    ]);
    const untimed = await refusalMessage(checkSpamProtection(servicesAt(later(60)).services, principal, timed, body()));
    expect(untimed).toBe(
      `This form takes at least 5 seconds to fill in; send the started_token of a new GET /public/forms/${formId} with it.`,
    );
  });

  it('when the submission comes sooner than the minimum, then too_fast; at the minimum, then it is accepted and will spend the token', async () => {
    expect(
      await refusalOf(checkSpamProtection(servicesAt(later(4.999)).services, principal, timed, body({ started_token: fetchedToken() }))),
    ).toBe('submitted_too_fast: /started_token too_fast');
    const { services, spent } = servicesAt(later(5));
    const verdict = await checkSpamProtection(services, principal, timed, body({ started_token: fetchedToken() }));
    expect(verdict).toEqual({ verdict: 'accept', spends: { challenge: undefined, startedToken: startedClaim(fetchedToken(), fetchedAt) } });
    expect(spent).toEqual([]);
  });

  it(`when the token is ${STARTED_TOKEN_LIFETIME_DAYS} days old, then it has expired; a millisecond sooner, then it times the submission`, async () => {
    const lifetimeSeconds = STARTED_TOKEN_LIFETIME_DAYS * 86_400;
    expect(
      await refusalOf(
        checkSpamProtection(servicesAt(later(lifetimeSeconds)).services, principal, timed, body({ started_token: fetchedToken() })),
      ),
    ).toBe('submitted_too_fast: /started_token expired');
    const inTime = await checkSpamProtection(
      servicesAt(later(lifetimeSeconds - 0.001)).services,
      principal,
      timed,
      body({ started_token: fetchedToken() }),
    );
    expect(inTime.verdict).toBe('accept');
  });

  it('when a token is issued, then it names when and for which form, and verifies for that key and form only', () => {
    const issued = issueStartedToken(principal, formId, later(7));
    expect(issued).toMatch(new RegExp(`^${later(7).getTime()}\\.${formId}\\.[0-9A-Za-z]{22}\\.[0-9A-Za-z_-]{43}$`));
    expect(verifyStartedToken(principal, issued, formId)).toEqual(later(7));
    const [at, form, nonce, signed] = issued.split('.');
    // The nonce is signed: a token with another nonce (or none) and this signature is not one.
    expect(verifyStartedToken(principal, [at, form, `${nonce!.slice(1)}x`, signed].join('.'), formId)).toBeUndefined();
    expect(verifyStartedToken(principal, [at, form, signed].join('.'), formId)).toBeUndefined();
    const otherKey = { ...principal, publishable: { ...principal.publishable!, tokenSecret: Buffer.alloc(32, 4) } } as Principal;
    expect(verifyStartedToken(otherKey, issued, formId)).toBeUndefined();
    // A token of another form, signed for that form, does not time this one.
    const otherForm = 'form_AAAAAAAAAAAAAAAAAAAAAAAA';
    expect(verifyStartedToken(principal, issueStartedToken(principal, otherForm, later(7)), formId)).toBeUndefined();
  });

  it('when a token comes with anything before or after it, then it is no token', () => {
    const issued = issueStartedToken(principal, formId, later(7));
    for (const altered of [`x${issued}`, `${issued}x`, ` ${issued}`, `${issued}\n`, `1${issued}`]) {
      expect(verifyStartedToken(principal, altered, formId), JSON.stringify(altered)).toBeUndefined();
    }
  });

  it('when two pages fetch the form in the same millisecond, then each gets a token of its own, and each verifies', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => issueStartedToken(principal, formId, later(7))));
    expect(tokens.size).toBe(50);
    for (const token of tokens) expect(verifyStartedToken(principal, token, formId)).toEqual(later(7));
  });

  it('when a token issued before nonces existed comes back, then it still verifies, for its form and key only', () => {
    const signedPart = `${later(3).getTime()}.${formId}`;
    const legacy = `${signedPart}.${createHmac('sha256', principal.publishable!.tokenSecret).update(signedPart).digest('base64url')}`;
    expect(verifyStartedToken(principal, legacy, formId)).toEqual(later(3));
    expect(verifyStartedToken(principal, legacy.replace(String(later(3).getTime()), String(later(2).getTime())), formId)).toBeUndefined();
  });

  it('when a caller without a publishable key would issue or check a token, then it is a programming error', () => {
    const secretCaller = { environment: 'live', workspace: { id: 'ws_1' } } as unknown as Principal;
    expect(() => issueStartedToken(secretCaller, formId, fetchedAt)).toThrow(/publishable keys only/);
    expect(() => verifyStartedToken(secretCaller, fetchedToken(), formId)).toThrow(/publishable keys only/);
  });

  it('when the form sets no minimum time, then the token is neither checked nor spent', async () => {
    const verdict = await checkSpamProtection(
      servicesAt(later(0)).services,
      principal,
      formWith({}),
      body({ started_token: 'not a token' }),
    );
    expect(verdict).toEqual({ verdict: 'accept', spends: { challenge: undefined, startedToken: undefined } });
  });
});

describe('the proof of work', () => {
  const guarded = formWith({ proof_of_work: true, min_completion_seconds: 5 });

  it('when a solved challenge of this key comes in time, then it is accepted and will be spent with the started token', async () => {
    const solved = await solvedFor('pk_own', later(0));
    const verdict = await checkSpamProtection(
      servicesAt(later(5)).services,
      principal,
      guarded,
      body({ started_token: fetchedToken(), challenge: solved.encoded }),
    );
    expect(verdict).toEqual({
      verdict: 'accept',
      spends: {
        challenge: { signature: solved.signature, expiresAt: solved.expiresAt },
        startedToken: startedClaim(fetchedToken(), fetchedAt),
      },
    });
  });

  it('when the challenge is another key’s, or missing, then 422 challenge_invalid or challenge_required', async () => {
    const { services } = servicesAt(later(5));
    const foreign = await solvedFor('pk_other', later(0));
    expect(
      await refusalOf(
        checkSpamProtection(services, principal, guarded, body({ started_token: fetchedToken(), challenge: foreign.encoded })),
      ),
    ).toBe('challenge_invalid: /challenge wrong_solution');
    expect(await refusalOf(checkSpamProtection(services, principal, guarded, body({ started_token: fetchedToken() })))).toBe(
      'challenge_required: /challenge required',
    );
  });

  it('when the challenge is malformed or has expired, then 422 challenge_invalid says which, and what to do', async () => {
    const untimed = formWith({ proof_of_work: true });
    const malformed = checkSpamProtection(servicesAt(later(0)).services, principal, untimed, body({ challenge: 'bm90IGEgc29sdXRpb24=' }));
    expect(await refusalOf(malformed)).toBe('challenge_invalid: /challenge malformed');
    const solved = await solvedFor('pk_own', later(0));
    const late = () => checkSpamProtection(servicesAt(later(600)).services, principal, untimed, body({ challenge: solved.encoded }));
    expect(await refusalOf(late())).toBe('challenge_invalid: /challenge expired');
    expect(await refusalMessage(late())).toBe('This challenge has expired; solve a new one from POST /public/challenges.');
    const missing = checkSpamProtection(servicesAt(later(0)).services, principal, untimed, body());
    expect(await refusalMessage(missing)).toBe(
      'This form requires proof of work; solve a challenge from POST /public/challenges and send it as challenge.',
    );
  });

  it('when a page asks for a challenge with its key, then its solution passes that key’s check; without a publishable key there is none', async () => {
    const { services } = servicesAt(later(0));
    const issued = await createPublicChallenge(services, principal);
    expect(issued).toMatchObject({ object: 'challenge', signature: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const solution = await solveChallenge({ challenge: issued, deriveKey });
    const encoded = Buffer.from(
      JSON.stringify({ challenge: { parameters: issued.parameters, signature: issued.signature }, solution }),
    ).toString('base64');
    const verdict = await checkSpamProtection(services, principal, formWith({ proof_of_work: true }), body({ challenge: encoded }));
    expect(verdict.spends.challenge?.signature).toBe(issued.signature);
    const secretCaller = { environment: 'live', workspace: { id: 'ws_1' } } as unknown as Principal;
    await expect(createPublicChallenge(services, secretCaller)).rejects.toThrow(/publishable keys only/);
    const unset = { ...services, challengeSecrets: undefined } as Services;
    await expect(createPublicChallenge(unset, principal)).rejects.toThrow(/challengeSecrets/);
  });

  it('when the submission is too fast and its challenge missing, then the time is what is refused: the challenge is not looked at', async () => {
    const { services } = servicesAt(later(4));
    expect(await refusalOf(checkSpamProtection(services, principal, guarded, body({ started_token: fetchedToken() })))).toBe(
      'submitted_too_fast: /started_token too_fast',
    );
  });

  it('when the form does not ask for proof of work, then a challenge sent is ignored', async () => {
    const verdict = await checkSpamProtection(
      servicesAt(later(0)).services,
      principal,
      formWith({}),
      body({ challenge: 'bm90IGEgc29sdXRpb24=' }),
    );
    expect(verdict.spends.challenge).toBeUndefined();
  });
});

describe('the honeypot', () => {
  const trapped = formWith({ honeypot_field: 'website', min_completion_seconds: 5, proof_of_work: true });

  it('when it is filled, then the verdict is discard, with what a real submission would spend, and nothing counted yet', async () => {
    const solved = await solvedFor('pk_own', later(0));
    const { services, counted } = servicesAt(later(5));
    const caught = await checkSpamProtection(
      services,
      principal,
      trapped,
      body({ answers: { website: 'x' }, started_token: fetchedToken(), challenge: solved.encoded }),
    );
    expect(caught).toEqual({
      verdict: 'discard',
      spends: {
        challenge: { signature: solved.signature, expiresAt: solved.expiresAt },
        startedToken: startedClaim(fetchedToken(), fetchedAt),
      },
    });
    // Counted by the caller once its answers and claims pass, as a real one is stored only then.
    expect(counted).toEqual([]);
  });

  it('when it is filled and the submission is also too fast, untimed or unproven, then it is refused as a real one is', async () => {
    const solved = await solvedFor('pk_own', later(0));
    const cases = [
      { at: later(1), sent: { started_token: fetchedToken(), challenge: solved.encoded } },
      { at: later(5), sent: { challenge: solved.encoded } },
      { at: later(5), sent: { started_token: fetchedToken() } },
      { at: later(5), sent: { started_token: fetchedToken(), challenge: 'bm90IGEgc29sdXRpb24=' } },
    ];
    for (const { at, sent } of cases) {
      const { services, counted } = servicesAt(at);
      const real = await refusalOf(checkSpamProtection(services, principal, trapped, body({ answers: { website: '' }, ...sent })));
      const caught = await refusalOf(checkSpamProtection(services, principal, trapped, body({ answers: { website: 'x' }, ...sent })));
      expect(real).toMatch(/^(submitted_too_fast|challenge_required|challenge_invalid): /);
      expect(caught).toBe(real);
      expect(counted).toEqual([]);
    }
  });

  it('when it catches a submission to a form without a minimum time or proof of work, then nothing is to be spent', async () => {
    const caught = await checkSpamProtection(
      servicesAt(later(0)).services,
      principal,
      formWith({ honeypot_field: 'website' }),
      body({ answers: { website: 'x' } }),
    );
    expect(caught).toEqual({ verdict: 'discard', spends: { challenge: undefined, startedToken: undefined } });
  });

  it('when the form has no honeypot, then no answer is taken for one, not even one named null', async () => {
    const answers = { null: 'filled', website: 'https://www.acme.example' };
    const submitted = body({ answers: { ...answers } });
    const { services, counted } = servicesAt(later(0));
    expect((await checkSpamProtection(services, principal, formWith({}), submitted)).verdict).toBe('accept');
    expect(submitted.answers).toEqual(answers);
    expect(counted).toEqual([]);
  });

  it('when it is sent empty, then it is taken out of the answers and the other checks apply', async () => {
    const answers = { email: 'tom@brightdesk.example', website: '' };
    const { services, counted } = servicesAt(later(60));
    const submitted = body({ answers, started_token: fetchedToken() });
    expect(await refusalOf(checkSpamProtection(services, principal, trapped, submitted))).toBe('challenge_required: /challenge required');
    expect(submitted.answers).toEqual({ email: 'tom@brightdesk.example' });
    expect(counted).toEqual([]);
  });
});

describe('what each refusal says', () => {
  /** The issue of the refusal `promise` rejects with, as `code: message`. */
  const issueOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: AppError) => {
        const [issue] = (error.details as { errors: Array<{ code: string; message: string }> }).errors;
        return `${issue!.code}: ${issue!.message}`;
      },
    );
  const timed = formWith({ min_completion_seconds: 5, proof_of_work: true });
  const check = (now: Date, extra: Partial<Schema<'PublicSubmissionCreate'>>) =>
    checkSpamProtection(servicesAt(now).services, principal, timed, body(extra));

  it('when the started token does not time the submission, then its issue says why in words', async () => {
    expect(await issueOf(check(later(60), {}))).toBe('required: is needed to time the submission');
    expect(await issueOf(check(later(60), { started_token: 'not a token' }))).toBe('invalid: is needed to time the submission');
    expect(await issueOf(check(later(STARTED_TOKEN_LIFETIME_DAYS * 86_400), { started_token: fetchedToken() }))).toBe(
      `expired: has expired (${STARTED_TOKEN_LIFETIME_DAYS} days after the form was fetched)`,
    );
    const spent = spendOrRefuse(servicesAt(later(60), 'started_token_used').services, timed.form, {
      startedToken: startedClaim('x', fetchedAt),
    });
    expect(await issueOf(spent)).toBe('already_used: already timed another submission');
  });

  it('when the challenge does not let the submission through, then its issue says why in words', async () => {
    expect(await issueOf(check(later(60), { started_token: fetchedToken() }))).toBe('required: is required by this form');
    expect(await issueOf(check(later(60), { started_token: fetchedToken(), challenge: 'bm90IGEgc29sdXRpb24=' }))).toBe(
      'malformed: is not a challenge solution',
    );
    const foreign = await solvedFor('pk_other', later(0));
    expect(await issueOf(check(later(60), { started_token: fetchedToken(), challenge: foreign.encoded }))).toBe(
      'wrong_solution: does not solve a challenge this key fetched',
    );
    const used = spendOrRefuse(servicesAt(later(60), 'challenge_used').services, timed.form, {
      challenge: { signature: 'b'.repeat(64), expiresAt: later(600).toISOString() },
    });
    expect(await issueOf(used)).toBe('already_used: was already used');
  });
});

describe('spendOrRefuse', () => {
  const form = formWith({ min_completion_seconds: 5, proof_of_work: true }).form;
  const claims = {
    challenge: { signature: 'a'.repeat(64), expiresAt: later(600).toISOString() },
    startedToken: startedClaim('a spent started token', fetchedAt),
  };

  it('when nothing is to be spent, then the store is not asked', async () => {
    const { services, spent } = servicesAt(later(5));
    await spendOrRefuse(services, form, {});
    expect(spent).toEqual([]);
  });

  it('when the store spends the claims, then the submission goes on; when one was spent before, then the refusal names it', async () => {
    const { services, spent } = servicesAt(later(5));
    await spendOrRefuse(services, form, claims);
    await spendOrRefuse(services, form, { challenge: claims.challenge });
    await spendOrRefuse(services, form, { startedToken: claims.startedToken });
    expect(spent).toEqual([claims, { challenge: claims.challenge }, { startedToken: claims.startedToken }]);
    expect(await refusalOf(spendOrRefuse(servicesAt(later(5), 'challenge_used').services, form, claims))).toBe(
      'challenge_invalid: /challenge already_used',
    );
    expect(await refusalMessage(spendOrRefuse(servicesAt(later(5), 'challenge_used').services, form, claims))).toBe(
      'This challenge was already used; solve a new one from POST /public/challenges.',
    );
    expect(await refusalMessage(spendOrRefuse(servicesAt(later(5), 'started_token_used').services, form, claims))).toBe(
      `This form takes at least 5 seconds to fill in; send the started_token of a new GET /public/forms/${formId} with it.`,
    );
    expect(
      await refusalOf(spendOrRefuse(servicesAt(later(5), 'started_token_used').services, form, { startedToken: claims.startedToken })),
    ).toBe('submitted_too_fast: /started_token already_used');
  });
});
