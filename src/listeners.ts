/**
 * The HTTPS (and plain-HTTP) listeners with their connection limits, and their draining at shutdown.
 *
 * Node's defaults suit a trusted network, not the internet: a TCP connection that never starts TLS is kept
 * for 120 s, and nothing bounds how many connections one address holds. Every idle socket costs a file
 * descriptor, so a few thousand of them from one client starve every other client. Here each stage of a
 * connection has its own deadline and the number of sockets is capped, overall and per remote address.
 */
import type { EventEmitter } from 'node:events';
import type { RequestListener, ServerResponse } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { addressLimitKey } from './http/client-address.js';
import { messageClassesOf } from './http/message-classes.js';

export interface ConnectionLimits {
  /** From TCP accept to a finished TLS handshake. */
  tlsHandshakeTimeoutMs: number;
  /** From the first byte of a request to the end of its headers. */
  headersTimeoutMs: number;
  /** From the first byte of a request to the end of its body. */
  requestTimeoutMs: number;
  /** How long an idle kept-alive connection waits for the next request. */
  keepAliveTimeoutMs: number;
  /** Open connections over all addresses; the next one is closed at once. */
  maxConnections: number;
  /** Open connections from one remote address; 0 for no per-address cap (behind a load balancer). */
  maxConnectionsPerAddress: number;
  /** The per-address cap counts an IPv6 client by its network of this many bits, as the per-address rate limits do. */
  ipv6PrefixLength: number;
}

export interface Listener {
  server: http.Server;
  /**
   * Stops taking requests: no new connections, idle ones closed, and every response from now on (including
   * those of requests in flight) carries `Connection: close`, so a kept-alive client cannot go on sending.
   * Resolves when the last in-flight request has finished and its connection is closed.
   */
  drain(): Promise<void>;
}

/**
 * Node checks header and request deadlines on a timer (30 s by default), which would let a slow client
 * overstay a short deadline by that much; a one-second sweep keeps them close to what is configured.
 */
const connectionsCheckingIntervalMs = 1000;

export function createHttpsListener(tls: { key: string; cert: string }, app: RequestListener, limits: ConnectionLimits): Listener {
  const server = https.createServer(
    {
      ...tls,
      ...messageClassesOf(app),
      handshakeTimeout: limits.tlsHandshakeTimeoutMs,
      connectionsCheckingInterval: connectionsCheckingIntervalMs,
    },
    app,
  );
  return withLimits(server, limits);
}

export function createHttpListener(app: RequestListener, limits: ConnectionLimits): Listener {
  return withLimits(
    http.createServer({ ...messageClassesOf(app), connectionsCheckingInterval: connectionsCheckingIntervalMs }, app),
    limits,
  );
}

function withLimits(server: http.Server, limits: ConnectionLimits): Listener {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  if (limits.maxConnectionsPerAddress > 0) capPerAddress(server, limits.maxConnectionsPerAddress, limits.ipv6PrefixLength);

  let draining = false;
  const inFlight = new Set<ServerResponse>();
  const closeIdle = () => setImmediate(() => server.closeIdleConnections());
  // Prepended, so the header is set before the app can write its response.
  server.prependListener('request', (_request, response: ServerResponse) => {
    inFlight.add(response);
    response.once('close', () => {
      inFlight.delete(response);
      if (draining) closeIdle();
    });
    if (draining) response.setHeader('Connection', 'close');
  });

  return {
    server,
    drain: () => {
      draining = true;
      for (const response of inFlight) if (!response.headersSent) response.setHeader('Connection', 'close');
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    },
  };
}

/**
 * Counts the raw TCP sockets of each remote address and destroys those beyond the cap. An address is counted under
 * `addressLimitKey`, as every per-address limit is: an IPv6 client by its network, so a /64 cannot hold the cap's
 * worth of sockets from each of its addresses.
 */
export function capPerAddress(server: EventEmitter, cap: number, ipv6PrefixLength: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = addressLimitKey(socket.remoteAddress ?? 'unknown', ipv6PrefixLength);
    const count = (open.get(address) ?? 0) + 1;
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
    if (count > cap) socket.destroy();
  });
}
