/**
 * The one-time tokens people carry: sign-in and invitation links, WebAuthn challenges and session cookies. Each is
 * 256 random bits, base64url (43 characters), and only its SHA-256 is stored, like API keys' secrets: a copy of the
 * database signs nobody in.
 */
import { randomBytes } from 'node:crypto';

export { hashToken } from '../oauth/secrets.js';

export const newOneTimeToken = (): string => randomBytes(32).toString('base64url');

/** What a token looks like; anything else is refused before a lookup. */
export const oneTimeTokenPattern = /^[A-Za-z0-9_-]{43}$/;

export const isOneTimeToken = (value: unknown): value is string => typeof value === 'string' && oneTimeTokenPattern.test(value);

const minute = 60_000;
export const lifetimes = {
  /** A sign-in link from the CLI or an email. */
  signInLinkMs: 15 * minute,
  /** A WebAuthn ceremony, from its options to its answer. */
  challengeMs: 5 * minute,
  /** A session unused this long has ended. */
  sessionIdleMs: 12 * 60 * minute,
  /** A session ends this long after its sign-in, however used. */
  sessionAbsoluteMs: 7 * 24 * 60 * minute,
  /** How often a session in use writes its `last_seen_at`: the idle lifetime is hours, a minute is precise enough. */
  sessionTouchMs: minute,
} as const;

export const after = (at: Date, ms: number): string => new Date(at.getTime() + ms).toISOString();
