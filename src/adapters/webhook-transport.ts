/**
 * How a delivery goes over the network: one HTTPS POST, connected only to the addresses the URL check
 * approved (a custom `lookup` returns them instead of asking DNS again), no redirects followed, no pooled
 * connection kept, and an answer required within the timeout. The worker takes any `WebhookTransport`, so
 * tests can count or fake requests.
 */

import type { LookupAddress, LookupOptions } from 'node:dns';
import https from 'node:https';
import tls from 'node:tls';
import { DeliveryFailure, type WebhookResponse, type WebhookTransport } from '../domain/integrations/delivery-transport.js';

export interface HttpsTransportOptions {
  /** Certificates to trust besides the public roots (a local receiver's self-signed certificate in tests). */
  extraCa?: string | Buffer | ReadonlyArray<string | Buffer> | undefined;
}

class DeliveryTimeout extends Error {
  readonly code = 'DELIVERY_TIMEOUT';
}

export function httpsTransport(options: HttpsTransportOptions = {}): WebhookTransport {
  const ca = options.extraCa === undefined ? undefined : [...tls.rootCertificates, ...[options.extraCa].flat()];
  return (request) =>
    new Promise<WebhookResponse>((resolve, reject) => {
      const pinned = (
        _hostname: string,
        lookupOptions: LookupOptions,
        callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
      ): void => {
        const family = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : undefined;
        const addresses = request.addresses.filter((entry) => family === undefined || entry.family === family);
        if (lookupOptions.all)
          callback(
            null,
            addresses.map(({ address, family: f }) => ({ address, family: f })),
          );
        else if (addresses[0]) callback(null, addresses[0].address, addresses[0].family);
        else callback(Object.assign(new Error('no approved address'), { code: 'ENOTFOUND' }), '', 0);
      };
      const req = https.request(request.url, {
        method: 'POST',
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
        lookup: pinned,
        agent: false,
        ...(ca ? { ca } : {}),
      });
      const timer = setTimeout(() => req.destroy(new DeliveryTimeout('timed out')), request.timeoutMs);
      req.on('response', (res) => {
        clearTimeout(timer);
        // The body is ignored (the contract says so). Closing the socket now, rather than draining it, keeps
        // a receiver that trickles a body forever from holding a connection (and a file descriptor) open.
        resolve({ status: res.statusCode ?? 0 });
        res.destroy();
      });
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(new DeliveryFailure(describeNetworkFailure(error, request.timeoutMs), { cause: error }));
      });
      req.end(request.body);
    });
}

const tlsCodes = /^(CERT_|ERR_TLS_|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|HOSTNAME_MISMATCH)/;

/**
 * The log's `error` text for a request that got no answer: from the error's code only, so no message of a
 * library (which might quote headers or internals) reaches a customer.
 */
export function describeNetworkFailure(error: unknown, timeoutMs: number): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
  if (code === 'DELIVERY_TIMEOUT') return `No answer within ${timeoutMs / 1000} seconds.`;
  if (code === 'ECONNREFUSED') return 'The connection was refused.';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'The connection was reset.';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'The host name did not resolve.';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'The host is unreachable.';
  if (code === 'ETIMEDOUT') return 'The connection timed out.';
  if (tlsCodes.test(code)) return `TLS error: ${code}.`;
  return code ? `The request failed: ${code}.` : 'The request failed.';
}
