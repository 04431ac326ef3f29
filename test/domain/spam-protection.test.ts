import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { describe, expect, it } from 'vitest';
import {
  CHALLENGE_LIFETIME_SECONDS,
  challengeSecrets,
  checkSolution,
  issueChallenge,
  secretsOfKey,
} from '../../src/domain/challenges/proof-of-work.js';
import { checkHoneypotField, completionShortfall, honeypotFilled, spamProtectionOf } from '../../src/domain/spam-protection/rules.js';

const secrets = challengeSecrets('a test key that is long enough to sign challenges');
const now = new Date();

/** A page's answer to a challenge, as the ALTCHA widget encodes it. */
async function solved(challenge: Awaited<ReturnType<typeof issueChallenge>>): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey });
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

describe('proof-of-work challenges', () => {
  it('when a page solves a challenge, then the solution is accepted and names the challenge and its expiry', async () => {
    const challenge = await issueChallenge(secrets, now);
    const check = await checkSolution(secrets, await solved(challenge), now);
    expect(check).toEqual({
      ok: true,
      signature: challenge.signature,
      expiresAt: new Date((Math.floor(now.getTime() / 1000) + CHALLENGE_LIFETIME_SECONDS) * 1000),
    });
  });

  it('when the solution is for another counter, then it is wrong', async () => {
    const challenge = await issueChallenge(secrets, now);
    const solution = await solveChallenge({ challenge, deriveKey });
    const wrong = { counter: solution!.counter + 1, derivedKey: solution!.derivedKey.replace(/^./, (c) => (c === '0' ? '1' : '0')) };
    const encoded = Buffer.from(JSON.stringify({ challenge, solution: wrong })).toString('base64');
    expect(await checkSolution(secrets, encoded, now)).toEqual({ ok: false, reason: 'wrong' });
  });

  it('when the challenge was signed with another key, or its parameters were changed, then the solution is wrong', async () => {
    const foreign = await issueChallenge(challengeSecrets('another key, another deployment, also long enough'), now);
    expect(await checkSolution(secrets, await solved(foreign), now)).toEqual({ ok: false, reason: 'wrong' });
    const challenge = await issueChallenge(secrets, now);
    const encoded = await solved(challenge);
    const payload = JSON.parse(Buffer.from(encoded, 'base64').toString());
    payload.challenge.parameters.expiresAt += 3600;
    expect(await checkSolution(secrets, Buffer.from(JSON.stringify(payload)).toString('base64'), now)).toEqual({
      ok: false,
      reason: 'wrong',
    });
  });

  it('when a challenge was issued for one publishable key, then its solution verifies with that key’s secrets only', async () => {
    const [own, other] = [secretsOfKey(secrets, 'pk_own'), secretsOfKey(secrets, 'pk_other')];
    expect(secretsOfKey(secrets, 'pk_own')).toEqual(own);
    const encoded = await solved(await issueChallenge(own, now));
    expect(await checkSolution(own, encoded, now)).toMatchObject({ ok: true });
    expect(await checkSolution(other, encoded, now)).toEqual({ ok: false, reason: 'wrong' });
    expect(await checkSolution(secrets, encoded, now)).toEqual({ ok: false, reason: 'wrong' });
  });

  it('when the challenge is older than its lifetime, then the solution is refused as expired', async () => {
    const challenge = await issueChallenge(secrets, now);
    const later = new Date(now.getTime() + (CHALLENGE_LIFETIME_SECONDS + 1) * 1000);
    expect(await checkSolution(secrets, await solved(challenge), later)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each([
    ['not Base64 JSON', 'bm90IGpzb24='],
    ['JSON without a challenge', Buffer.from('{"solution":{}}').toString('base64')],
    [
      'another algorithm',
      Buffer.from('{"challenge":{"parameters":{"algorithm":"MD5","expiresAt":1},"signature":"x"},"solution":{}}').toString('base64'),
    ],
  ])('when the payload is %s, then it is malformed, never an exception', async (_name, encoded) => {
    expect(await checkSolution(secrets, encoded, now)).toEqual({ ok: false, reason: 'malformed' });
  });
});

describe('spam protection rules', () => {
  it('when a form has no spam protection, then every setting takes its default (off)', () => {
    expect(spamProtectionOf(undefined)).toEqual({ honeypot_field: null, min_completion_seconds: 0, proof_of_work: false });
    expect(spamProtectionOf({ proof_of_work: true })).toEqual({ honeypot_field: null, min_completion_seconds: 0, proof_of_work: true });
  });

  it.each([
    ['a word', 'http://spam.example', true],
    ['a number', 0, true],
    ['true', true, true],
    ['a choice', ['a'], true],
    ['nothing', undefined, false],
    ['an empty string', '', false],
    ['spaces', '  ', false],
    ['false', false, false],
    ['no choice', [], false],
  ] as const)('when the honeypot holds %s, then it caught a bot: %s', (_name, value, caught) => {
    expect(honeypotFilled(value as never)).toBe(caught);
  });

  it('when no minimum is set, then any time passes; when one is set, then a missing or early start falls short', () => {
    const start = new Date('2026-11-27T10:00:00.000Z');
    const at = (ms: number) => new Date(start.getTime() + ms);
    expect(completionShortfall(0, undefined, at(0))).toEqual({ tookSeconds: null, shortBy: 0 });
    expect(completionShortfall(5, undefined, at(0))).toEqual({ tookSeconds: null, shortBy: 5 });
    expect(completionShortfall(5, start, at(4_999))).toEqual({ tookSeconds: 4, shortBy: 1 });
    expect(completionShortfall(5, start, at(5_000))).toEqual({ tookSeconds: 5, shortBy: 0 });
    expect(completionShortfall(5, start, at(-2_000))).toEqual({ tookSeconds: 0, shortBy: 5 });
  });

  it('when the honeypot is named like a field of the form, then that is an issue on /spam_protection/honeypot_field', () => {
    const settings = spamProtectionOf({ honeypot_field: 'email' });
    expect(checkHoneypotField(settings, new Set(['email']))).toEqual([
      expect.objectContaining({ pointer: '/spam_protection/honeypot_field', code: 'honeypot_is_a_field' }),
    ]);
    expect(checkHoneypotField(settings, new Set(['name']))).toEqual([]);
  });
});
