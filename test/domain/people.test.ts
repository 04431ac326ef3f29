/**
 * The rules of people's pages that need no server: where `next` may lead, what a member's role may grant, and the
 * tokens' shape.
 */
import { describe, expect, it } from 'vitest';
import { isEmail } from '../../src/domain/email.js';
import { grantableScopes } from '../../src/domain/people/consent.js';
import { localPath } from '../../src/domain/people/local-path.js';
import { isOneTimeToken, lifetimes, newOneTimeToken } from '../../src/domain/people/tokens.js';

describe('localPath', () => {
  it.each(['/account', '/oauth/authorize?client_id=x&scope=read%20admin', '/a/b/c#top', `/${'a'.repeat(1999)}`])(
    'when next is %j, then it is kept',
    (next) => {
      expect(localPath(next)).toBe(next);
    },
  );

  it.each([
    ['another origin, scheme-relative', '//evil.example/x'],
    ['a backslash, which browsers read as a slash', '/\\evil.example'],
    ['a backslash later on', '/ok\\..\\x'],
    ['an absolute URL', 'https://evil.example/'],
    ['a scheme', 'javascript:alert(1)'],
    ['a relative path', 'account'],
    ['a tab, which browsers strip', '/\t/evil.example'],
    ['a newline', '/x\n'],
    ['a space', '/ x'],
    ['DEL', '/x\u007f'],
    ['empty', ''],
    ['too long', `/${'a'.repeat(2000)}`],
  ])('when next is %s, then it is refused', (_why, next) => {
    expect(localPath(next)).toBeUndefined();
  });

  it('when next is not a string, then it is refused', () => {
    expect(localPath(['/account'])).toBeUndefined();
    expect(localPath(undefined)).toBeUndefined();
  });
});

describe('grantableScopes', () => {
  it('when a viewer is asked for everything, then read is granted and the rest withheld', () => {
    expect(grantableScopes('viewer', ['read', 'read_write', 'admin'])).toEqual({ granted: ['read'], withheld: ['read_write', 'admin'] });
  });
  it('when an editor is asked for everything, then read and read_write are granted', () => {
    expect(grantableScopes('editor', ['read', 'read_write', 'admin'])).toEqual({ granted: ['read', 'read_write'], withheld: ['admin'] });
  });
  it('when an admin is asked for everything, then everything is granted', () => {
    expect(grantableScopes('admin', ['read', 'read_write', 'admin'])).toEqual({ granted: ['read', 'read_write', 'admin'], withheld: [] });
  });
  it('when a viewer is asked for admin only, then nothing is granted', () => {
    expect(grantableScopes('viewer', ['admin'])).toEqual({ granted: [], withheld: ['admin'] });
  });
});

describe('one-time tokens', () => {
  it('when a token is made, then it is 256 random bits as 43 base64url characters, and each is new', () => {
    const token = newOneTimeToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(newOneTimeToken()).not.toBe(token);
    expect(isOneTimeToken(token)).toBe(true);
  });
  it.each([
    ['short', 'a'.repeat(42)],
    ['long', 'a'.repeat(44)],
    ['padded', `${'a'.repeat(42)}=`],
    ['not text', 42],
  ])('when a token is %s, then it is no token', (_why, value) => {
    expect(isOneTimeToken(value)).toBe(false);
  });
  it('when the lifetimes are read, then they are the documented ones', () => {
    expect(lifetimes).toEqual({
      signInLinkMs: 15 * 60_000,
      challengeMs: 5 * 60_000,
      sessionIdleMs: 12 * 3600_000,
      sessionAbsoluteMs: 7 * 24 * 3600_000,
      sessionTouchMs: 60_000,
    });
  });
});

describe("isEmail (the contract's Email format, as the API checks it)", () => {
  it.each(['ana@example.com', 'ana.ruiz+leads@acme.co.uk', `${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(63)}.com`])(
    'when %s, then accepted',
    (email) => {
      expect(isEmail(email)).toBe(true);
    },
  );
  it.each([
    'owner@localhost',
    'ana',
    'ana@',
    '@acme.test',
    'ana @acme.test',
    `${'a'.repeat(64)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(64)}.com`,
  ])('when %j, then refused', (email) => {
    expect(isEmail(email)).toBe(false);
  });
});
