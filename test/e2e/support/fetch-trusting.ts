/**
 * A `fetch` for the typed client that trusts one extra certificate authority, such as the reference server's
 * self-signed certificate. Node 20's global fetch takes no CA option and undici is not a dependency of the
 * project, so this adapter sends the Request with node:https and returns a standard Response. Hostnames are
 * still verified (the test certificate names localhost and 127.0.0.1).
 */
import https from 'node:https';
import type { FetchLike } from '../../../src/client/index.js';

export interface TrustingFetch {
  fetch: FetchLike;
  /** Closes the kept-alive connections, so the server can close without waiting for them. */
  close(): void;
}

export function fetchTrusting(ca: string): TrustingFetch {
  const agent = new https.Agent({ ca, keepAlive: true });
  const fetch: FetchLike = async (request) => {
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    return new Promise<Response>((resolve, reject) => {
      const outgoing = https.request(
        request.url,
        { method: request.method, headers: Object.fromEntries(request.headers), agent, signal: request.signal },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', reject);
          incoming.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(incoming.headers)) {
              for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
            }
            const status = incoming.statusCode ?? 0;
            // A Response with one of these statuses must not have a body, even an empty one.
            const bodyless = request.method === 'HEAD' || [101, 204, 205, 304].includes(status);
            resolve(new Response(bodyless ? null : Buffer.concat(chunks), { status, statusText: incoming.statusMessage ?? '', headers }));
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
  return { fetch, close: () => agent.destroy() };
}
