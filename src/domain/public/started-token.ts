/**
 * The `started_token` of `GET /public/forms/{id}`: when a page fetched a form, signed by the service so that the
 * page cannot backdate it. It is `<issued at, Unix ms>.<form id>.<nonce>.<HMAC-SHA256, base64url>`, the HMAC keyed
 * with the publishable key's own token secret (never shown) over the first three parts: a token is bound to its form
 * and to the key that fetched it, and a revoked key's tokens die with it. The nonce (22 base62 characters) makes
 * every token its own: two pages that fetch a form in the same millisecond must not share one, since a token is
 * spent by the submission it times. Tokens issued without a nonce (before it existed) still verify. Spam
 * protection measures the time a respondent took from it (a minimum completion time); a token times one stored
 * submission (../public/spam-check.ts spends it) and expires after `STARTED_TOKEN_LIFETIME_DAYS`, so one wait never
 * buys more than one submission.
 */
import { createHmac } from 'node:crypto';
import { secretBase62 } from '../../ids.js';
import type { Principal } from '../access.js';
import { hashesMatch } from '../keys/secret.js';
import { RESUME_WINDOW_DAYS } from './resume-token.js';

/**
 * How long a started token times a submission after the page fetched the form (the StartedToken schema says so): as
 * long as a partial submission can be continued, so a page left open that long can still be sent.
 */
export const STARTED_TOKEN_LIFETIME_DAYS = RESUME_WINDOW_DAYS;

/** When a token issued at `issuedAt` stops timing submissions. */
export const startedTokenExpiryOf = (issuedAt: Date): Date => new Date(issuedAt.getTime() + STARTED_TOKEN_LIFETIME_DAYS * 86_400_000);

const tokenPattern = /^([0-9]{13})\.(form_[0-9A-Za-z]{24})\.(?:([0-9A-Za-z]{22})\.)?([0-9A-Za-z_-]{43})$/;

/**
 * A new publishable key's token secret: 43 base62 characters (256 bits), drawn like every other secret from the id
 * source, so the examples recorded from the server carry the same started tokens on every run.
 */
export const generateTokenSecret = (): Buffer => Buffer.from(secretBase62(43), 'latin1');

/** What the signature covers: every part before it. */
const signature = (tokenSecret: Buffer, signed: string): Buffer => createHmac('sha256', tokenSecret).update(signed, 'utf8').digest();

/** The signing secret of a publishable key's caller; a caller with another credential has none. */
function tokenSecretOf(principal: Principal): Buffer {
  if (!principal.publishable) throw new Error('Started tokens are issued and checked for publishable keys only.');
  return principal.publishable.tokenSecret;
}

export function issueStartedToken(principal: Principal, formId: string, at: Date): string {
  const signed = `${at.getTime()}.${formId}.${secretBase62(22)}`;
  return `${signed}.${signature(tokenSecretOf(principal), signed).toString('base64url')}`;
}

/**
 * When the token says the form was fetched, if it is a token this key issued for `formId` (compared in constant
 * time); `undefined` for anything else: malformed, another form, another key, or altered.
 */
export function verifyStartedToken(principal: Principal, token: string, formId: string): Date | undefined {
  const parts = tokenPattern.exec(token);
  if (!parts || parts[2] !== formId) return undefined;
  const signed = token.slice(0, token.length - parts[4]!.length - 1);
  const expected = signature(tokenSecretOf(principal), signed).toString('base64url');
  // Compared as text, not decoded: the last of 43 base64url characters carries two unused bits, so decoding would
  // let four spellings of one token verify, and a token is spent by its spelling (one wait, one submission).
  return hashesMatch(Buffer.from(parts[4]!, 'latin1'), Buffer.from(expected, 'latin1')) ? new Date(Number(parts[1])) : undefined;
}
