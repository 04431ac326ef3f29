/**
 * SSRF protection for webhook URLs: HTTPS only, and every address the host resolves to must be public
 * unicast. Checked when a URL is set and again before every delivery; the delivery then connects only to the
 * addresses that passed (see `src/adapters/webhook-transport.ts`), so a DNS answer that changes between check and connect
 * (rebinding) cannot reach an internal address.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface WebhookUrlPolicy {
  /** The operator's ALLOW_PRIVATE_WEBHOOK_URLS: loopback, private and link-local targets, for local testing. */
  allowPrivateAddresses: boolean;
  /** Every address of a host name (A and AAAA); the system resolver in `src/adapters/dns-resolver.ts`. */
  resolveHost(hostname: string): Promise<ResolvedAddress[]>;
}

export type UrlVerdict = { ok: true; addresses: ResolvedAddress[] } | { ok: false; reason: string };

/** Ranges the operator's setting opens up; multicast, unspecified, broadcast and reserved ranges stay closed. */
const privateRanges = new Set(['loopback', 'private', 'linkLocal', 'uniqueLocal', 'carrierGradeNat']);

/** Why an address may not receive webhooks, or null when it may. */
export function addressRefusal(address: string, policy: Pick<WebhookUrlPolicy, 'allowPrivateAddresses'>): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  // IPv4-compatible IPv6 (::a00:1, deprecated by RFC 4291) is "unicast" to ipaddr.js but carries an IPv4
  // address, possibly a private one: never a public webhook target.
  const ipv4Compatible = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0);
  if (range === 'unicast' && ipv4Compatible) return `it resolves to ${address}, an IPv4-compatible IPv6 address`;
  if (range === 'unicast') return null;
  if (!privateRanges.has(range)) return `it resolves to a ${range} address, not a public one`;
  if (policy.allowPrivateAddresses) return null;
  // Named, because whoever meets this refusal while testing against a local receiver needs the setting's name.
  return (
    `it resolves to a ${range} address, not a public one ` +
    '(a server run for local testing accepts loopback and private addresses with ALLOW_PRIVATE_WEBHOOK_URLS=true)'
  );
}

export async function checkWebhookUrl(url: string, policy: WebhookUrlPolicy): Promise<UrlVerdict> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'it is not a URL' };
  }
  if (parsed.protocol !== 'https:') return { ok: false, reason: 'it is not an https URL' };
  // Credentials in the URL would be sent as Basic auth and shown to every key that can read the integration.
  if (parsed.username !== '' || parsed.password !== '') return { ok: false, reason: 'it carries credentials (user:password@)' };
  // The URL parser has already normalised IPv4 spellings (0x7f.1, 2130706433) to dotted decimal.
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await policy.resolveHost(host);
    } catch {
      return { ok: false, reason: `its host ${host} does not resolve` };
    }
    if (addresses.length === 0) return { ok: false, reason: `its host ${host} does not resolve` };
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal !== null) return { ok: false, reason: refusal };
  }
  return { ok: true, addresses };
}
