import type { Request } from 'express';
import ipaddr from 'ipaddr.js';
import { isAddressAllowed } from '../domain/keys/ip-allowlist.js';

/**
 * The caller's address and protocol. Forwarding headers are believed only when the connection comes from
 * a configured trusted proxy; otherwise anyone could claim any address (and slip past an allowlist) or
 * claim HTTPS over plain HTTP.
 */
export interface ConnectionInfo {
  clientIp: string;
  secure: boolean;
}

export function connectionInfo(req: Request, trustedProxies: readonly string[]): ConnectionInfo {
  const peer = req.socket.remoteAddress ?? '';
  const encrypted = 'encrypted' in req.socket && req.socket.encrypted === true;
  if (trustedProxies.length === 0 || !isAddressAllowed(trustedProxies, peer)) return { clientIp: peer, secure: encrypted };
  // The nearest hop not belonging to our proxies is the client.
  const hops = (req.get('x-forwarded-for') ?? '')
    .split(',')
    .map((hop) => hopAddress(hop.trim()))
    .filter(Boolean);
  let clientIp = peer;
  for (let index = hops.length - 1; index >= 0; index--) {
    clientIp = hops[index]!;
    if (!isAddressAllowed(trustedProxies, clientIp)) break;
  }
  const proto = req.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return { clientIp, secure: proto === undefined ? encrypted : proto === 'https' };
}

/**
 * A forwarded hop's address without the brackets and port some proxies write (`[2001:db8::1]:443`,
 * `203.0.113.7:51234`): the same client is one address to the allowlists and the per-address limits however its
 * proxy spells it. Anything else is kept as written (and is no address an allowlist admits).
 */
export function hopAddress(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(hop);
  if (bracketed) return bracketed[1]!;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(hop);
  return withPort ? withPort[1]! : hop;
}

/**
 * The one name every per-address limit counts a client under. An IPv4 client is its address; an IPv6 client is its
 * network of `ipv6PrefixLength` bits, since a subscriber is given a whole /64 and could otherwise send each request
 * from another of its addresses; an IPv4-mapped IPv6 address (`::ffff:203.0.113.7`, as a dual-stack socket reports
 * IPv4 peers) is the IPv4 client it maps. What does not parse as an address is counted as written.
 */
export function addressLimitKey(address: string, ipv6PrefixLength: number): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const mask = ipaddr.IPv6.subnetMaskFromPrefixLength(ipv6PrefixLength).toByteArray();
  const network = ipaddr.fromByteArray(parsed.toByteArray().map((byte, index) => byte & mask[index]!));
  return `${network.toString()}/${ipv6PrefixLength}`;
}
