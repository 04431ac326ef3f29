import { describe, expect, it } from 'vitest';
import { highestScope, parseScopes } from '../../src/domain/oauth/scopes.js';

describe('OAuth scopes', () => {
  it('when scopes are listed in any order with repeats, then they come back once each in ascending power', () => {
    expect(parseScopes('admin read read')).toEqual(['read', 'admin']);
    expect(parseScopes('read_write  read')).toEqual(['read', 'read_write']);
  });

  it('when a word is not a scope or the list is empty, then the list is invalid', () => {
    expect(parseScopes('read write')).toBeUndefined();
    expect(parseScopes('READ')).toBeUndefined();
    expect(parseScopes('   ')).toBeUndefined();
    expect(parseScopes('constructor')).toBeUndefined();
  });

  it('when a token acts for several scopes, then it has the highest', () => {
    expect(highestScope(['read'])).toBe('read');
    expect(highestScope(['read', 'read_write'])).toBe('read_write');
    expect(highestScope(['admin', 'read'])).toBe('admin');
  });
});
