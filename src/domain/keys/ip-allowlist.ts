import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Parses an allowlist entry (address or CIDR range) into a range; undefined when it is not valid. */
export function parseAllowlistEntry(entry: string): [Address, number] | undefined {
  try {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const address = ipaddr.parse(entry);
    return [address, address.kind() === 'ipv4' ? 32 : 128];
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
