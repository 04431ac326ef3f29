import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Parses an allowlist entry (address or CIDR range) into a range; undefined when it is not valid. IPv4 must be
 * written as four decimal numbers, also inside IPv6 (`::ffff:203.0.113.7`): the legacy spellings ipaddr.js and
 * inet_aton accept mean different addresses to different readers (`0177.0.0.14` is 127.0.0.14 in octal, `1.2.3`
 * is 1.2.0.3, and ipaddr.js reads `::ffff:0177.0.0.1` as decimal), so an allowlist must not hold them.
 */
export function parseAllowlistEntry(entry: string): [Address, number] | undefined {
  const [address = '', prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || (prefix !== undefined && !/^(0|[1-9][0-9]{0,2})$/.test(prefix))) return undefined;
  const dotted = address.slice(address.lastIndexOf(':') + 1);
  if (dotted.includes('.') && !ipaddr.IPv4.isValidFourPartDecimal(dotted)) return undefined;
  try {
    if (prefix !== undefined) return ipaddr.parseCIDR(entry);
    const parsed = ipaddr.parse(address);
    return [parsed, parsed.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return undefined;
  }
}

/**
 * Whether a client address is inside any entry. `ipaddr.process` turns IPv4-mapped IPv6 addresses
 * (`::ffff:203.0.113.7`, what a dual-stack socket reports) into plain IPv4 so IPv4 entries match them.
 */
export function isAddressAllowed(allowlist: readonly string[], clientIp: string): boolean {
  if (allowlist.length === 0) return true;
  let client: Address;
  try {
    client = ipaddr.process(clientIp);
  } catch {
    return false;
  }
  return allowlist.some((entry) => {
    const range = parseAllowlistEntry(entry);
    if (!range) return false;
    let [network, bits] = range;
    if (network.kind() === 'ipv6' && (network as ipaddr.IPv6).isIPv4MappedAddress()) {
      network = (network as ipaddr.IPv6).toIPv4Address();
      bits = Math.max(0, bits - 96);
    }
    return client.kind() === network.kind() && client.match([network, bits] as never);
  });
}
