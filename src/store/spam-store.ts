/**
 * What spam protection keeps: the proof-of-work challenges already used (each until it expires, so a solution is
 * accepted once however many processes or machines answer), and the public submissions a form's honeypot caught,
 * counted per form, environment and day for its analytics. Neither holds anything about a respondent.
 */
import type { Environment } from '../contract.js';

export interface SpamStore {
  /** Records the challenge as used; false when it already was. Atomic, so two requests racing cannot both win. */
  claimChallenge(signature: string, expiresAt: string): Promise<boolean>;
  /** Forgets used challenges that expired before `before` (they are refused as expired anyway). */
  purgeExpiredChallenges(before: string, limit: number): Promise<number>;
  /** Counts one submission caught by the form's honeypot on `day` (`YYYY-MM-DD`, UTC). */
  countSpam(formId: string, environment: Environment, day: string): Promise<void>;
  /** The submissions caught by the form's honeypot from `from` to `to` (days, both included). */
  spamCount(formId: string, environment: Environment, from: string, to: string): Promise<number>;
}
