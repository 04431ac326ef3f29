import type { Request } from 'express';
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
    .map((hop) => hop.trim())
    .filter(Boolean);
  let clientIp = peer;
  for (let index = hops.length - 1; index >= 0; index--) {
    clientIp = hops[index]!;
    if (!isAddressAllowed(trustedProxies, clientIp)) break;
  }
  const proto = req.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return { clientIp, secure: proto === undefined ? encrypted : proto === 'https' };
}
