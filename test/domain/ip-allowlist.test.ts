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

  it.each([
    ['203.0.113.0/24/8', 'two prefixes'],
    ['203.0.113.0/024', 'a prefix with a leading zero'],
    ['203.0.113.0/+24', 'a signed prefix'],
    ['203.0.113.0/24x', 'a prefix followed by text'],
    ['203.0.113.0/x24', 'text before the prefix'],
    ['203.0.113.0/1000', 'a four-digit prefix'],
    ['0177.0.0.14', 'an octal IPv4 spelling'],
    ['1.2.3', 'a three-part IPv4 spelling'],
    ['::ffff:0177.0.0.1', 'an octal IPv4 spelling inside IPv6'],
    ['not-an-address', 'no address'],
  ])('when the entry is %s (%s), then it is not a valid entry', (entry) => {
    expect(parseAllowlistEntry(entry)).toBeUndefined();
  });

  it('when a prefix has one, two or three digits, then it is read', () => {
    expect(parseAllowlistEntry('10.0.0.0/8')?.[1]).toBe(8);
    expect(parseAllowlistEntry('203.0.113.0/24')?.[1]).toBe(24);
    expect(parseAllowlistEntry('2001:db8::/128')?.[1]).toBe(128);
    expect(parseAllowlistEntry('0.0.0.0/0')?.[1]).toBe(0);
  });

  it('when the allowlist has several entries, then an address inside any of them is admitted, and an invalid entry admits nothing', () => {
    expect(isAddressAllowed(['198.51.100.1', '203.0.113.7'], '203.0.113.7')).toBe(true);
    expect(isAddressAllowed(['not-an-address', '203.0.113.7'], '203.0.113.7')).toBe(true);
    expect(isAddressAllowed(['not-an-address'], '203.0.113.7')).toBe(false);
  });

  it('when the entry is an IPv4-mapped IPv6 range, then it admits the IPv4 addresses of that range only', () => {
    const allowed = (client: string) => isAddressAllowed(['::ffff:203.0.113.0/120'], client);
    expect(['203.0.113.9', '::ffff:203.0.113.200'].map(allowed)).toEqual([true, true]);
    expect(['203.0.114.1', '198.51.100.9'].map(allowed)).toEqual([false, false]);
  });

  it('when the entry and the client are of different families, then the client is not admitted', () => {
    expect(isAddressAllowed(['203.0.113.7'], '2001:db8::7')).toBe(false);
    expect(isAddressAllowed(['2001:db8::/32'], '203.0.113.7')).toBe(false);
  });
});
