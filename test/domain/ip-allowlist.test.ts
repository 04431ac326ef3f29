import { describe, expect, it } from 'vitest';
import { isAddressAllowed, parseAllowlistEntry } from '../../src/domain/keys/ip-allowlist.js';

describe('IP allowlist entries', () => {
  it.each([
    ['an IPv4 address', '203.0.113.7', '203.0.113.7', ['203.0.113.6', '203.0.113.8', '203.0.113.5']],
    ['an IPv4 address at the top of an octet', '198.51.100.255', '198.51.100.255', ['198.51.100.254', '198.51.101.0']],
    ['an IPv6 address', '2001:db8::7', '2001:db8:0:0:0:0:0:7', ['2001:db8::6', '2001:db8::8', '2001:db8::5']],
    ['an IPv4-mapped IPv6 address', '::ffff:203.0.113.7', '203.0.113.7', ['203.0.113.6', '::ffff:203.0.113.6', '203.0.113.8']],
  ])('when the entry is %s, then it admits that address only, not its neighbours', (_name, entry, itself, neighbours) => {
    expect(isAddressAllowed([entry], itself)).toBe(true);
    expect(neighbours.filter((neighbour) => isAddressAllowed([entry], neighbour))).toEqual([]);
  });

  it('when the entry is a single address, then it is read as a range of one (/32 for IPv4, /128 for IPv6)', () => {
    expect(parseAllowlistEntry('203.0.113.7')?.[1]).toBe(32);
    expect(parseAllowlistEntry('2001:db8::7')?.[1]).toBe(128);
  });

  it('when the entry is a CIDR range, then its first and last addresses are in and the ones beside it are out', () => {
    const allowed = (client: string) => isAddressAllowed(['203.0.113.8/29'], client);
    expect(['203.0.113.8', '203.0.113.15'].map(allowed)).toEqual([true, true]);
    expect(['203.0.113.7', '203.0.113.16'].map(allowed)).toEqual([false, false]);
  });

  it('when the allowlist is empty, then every address is admitted; when the client address is unreadable, then it is not', () => {
    expect(isAddressAllowed([], '203.0.113.7')).toBe(true);
    expect(isAddressAllowed(['203.0.113.7'], 'not-an-address')).toBe(false);
  });
});
