/**
 * What spam protection keeps: what public submissions spent (proof-of-work challenges and started tokens, each until
 * it expires, so that it is accepted once however many processes or machines answer), the partial submissions a
 * form's honeypot caught (so that their pages can continue them as real ones), and the catches counted per form,
 * environment and day for its analytics. None of it holds anything about a respondent.
 */
import type { Environment } from '../contract.js';

/** What a submission about to be stored spends: each is accepted once, until it expires. */
export interface SpentClaims {
  /** The signature of its proof-of-work challenge. */
  challenge?: { signature: string; expiresAt: string } | undefined;
  /** The SHA-256 of its `started_token`. */
  startedToken?: { hash: Buffer; expiresAt: string } | undefined;
}

/** `spent` when every claim was recorded; otherwise the first that was already spent, and nothing was recorded. */
export type SpendOutcome = 'spent' | 'challenge_used' | 'started_token_used';

/**
 * A submission the honeypot caught: nothing of it is stored but what answering its PATCHes as a real one's needs
 * (a completed one has no resume token: its hash is empty, which no token matches).
 */
export interface CaughtSubmission {
  submissionId: string;
  workspaceId: string;
  environment: Environment;
  formId: string;
  /** The SHA-256 of the resume token its page was given. */
  tokenHash: Buffer;
  completed: boolean;
  expiresAt: string;
}

export interface SpamStore {
  /**
   * Records every claim as spent, all or none, in one transaction: of requests racing with one claim, exactly one
   * gets `spent`; a request refused for one claim leaves its other claims unspent.
   */
  spend(claims: SpentClaims): Promise<SpendOutcome>;
  /**
   * Forgets claims spent for a submission that was then not stored (its insert failed), so that the respondent's
   * retry can spend them again: a claim is spent by a stored submission only.
   */
  refund(claims: SpentClaims): Promise<void>;
  /** Forgets spent claims and caught submissions that expired before `before` (each is refused as expired anyway). */
  purgeExpired(before: string, limit: number): Promise<number>;
  recordCaught(caught: CaughtSubmission): Promise<void>;
  findCaught(submissionId: string): Promise<CaughtSubmission | undefined>;
  /** Marks the caught submission completed; false when it already was (two completions racing: one wins). */
  completeCaught(submissionId: string): Promise<boolean>;
  /** Counts one submission caught by the form's honeypot on `day` (`YYYY-MM-DD`, UTC). */
  countSpam(formId: string, environment: Environment, day: string): Promise<void>;
  /** The submissions caught by the form's honeypot from `from` to `to` (days, both included). */
  spamCount(formId: string, environment: Environment, from: string, to: string): Promise<number>;
}
