/**
 * Connection limits and draining of the listeners (src/listeners.ts), with real sockets against a listener
 * started in this process: deadlines set small so each takes well under a second or two.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConnectionLimits, capPerAddress, createHttpsListener, type Listener } from '../../src/listeners.js';
import { testCertificate } from '../support/harness.js';

const relaxed: ConnectionLimits = {
  tlsHandshakeTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 10_000,
  maxConnections: 1000,
  maxConnectionsPerAddress: 0,
  ipv6PrefixLength: 64,
};

let listener: Listener | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  listener?.server.closeAllConnections();
  await new Promise((resolve) => listener?.server.close(resolve) ?? resolve(undefined));
  listener = undefined;
});

/** A listener answering `ok`, or holding the request until `release` is called when the path is /slow. */
async function start(limits: Partial<ConnectionLimits>) {
  let release: () => void = () => {};
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const answer = () => response.end('ok');
    if (request.url === '/slow') release = answer;
    else answer();
  };
  listener = createHttpsListener(await testCertificate(), handler, { ...relaxed, ...limits });
  await new Promise<void>((resolve) => listener!.server.listen(0, '127.0.0.1', resolve));
  return { port: (listener.server.address() as AddressInfo).port, release: () => release() };
}

const rawSocket = (port: number) =>
  new Promise<net.Socket>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });

const tlsSocket = (port: number) =>
  new Promise<tls.TLSSocket>((resolve, reject) => {
    const socket = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });

/** Milliseconds until the socket closes, or `null` if it is still open after `withinMs`. */
const closedWithin = (socket: net.Socket, withinMs: number) =>
  new Promise<number | null>((resolve) => {
    if (socket.destroyed) return resolve(0);
    const started = Date.now();
    const timer = setTimeout(() => resolve(null), withinMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });

/** Everything the server sends until it has sent `until` (or closes). */
const readUntil = (socket: net.Socket, until: RegExp) =>
  new Promise<string>((resolve) => {
    let text = '';
    const done = () => resolve(text);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (until.test(text)) done();
    });
    socket.once('close', done);
  });

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;

describe('connection limits', () => {
  it('when one address opens more connections than MAX_CONNECTIONS_PER_ADDRESS, then the extra one is closed at once and the others stay', async () => {
    const { port } = await start({ maxConnectionsPerAddress: 3 });
    const allowed = [await rawSocket(port), await rawSocket(port), await rawSocket(port)];
    const extra = await rawSocket(port);
    expect(await closedWithin(extra, 1000)).not.toBeNull();
    for (const socket of allowed) expect(socket.destroyed).toBe(false);

    // A closed connection frees its place for the next one from the same address.
    allowed[0]!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const next = await tlsSocket(port);
    next.write(get('/'));
    expect(await readUntil(next, /ok$/)).toMatch(/^HTTP\/1\.1 200 OK/);
  });

  it('when sockets come from many addresses of one IPv6 /64, then they share one MAX_CONNECTIONS_PER_ADDRESS; another /64 has its own', () => {
    // Loopback offers one IPv6 address only: the listener's connection events are played by hand.
    class PeerSocket extends EventEmitter {
      destroyed = false;
      constructor(readonly remoteAddress: string) {
        super();
      }
      destroy() {
        this.destroyed = true;
        this.emit('close');
      }
    }
    const server = new EventEmitter();
    capPerAddress(server, 2, 64);
    const connect = (address: string) => {
      const socket = new PeerSocket(address);
      server.emit('connection', socket);
      return socket;
    };
    const [first, second] = [connect('2001:db8:1:2::1'), connect('2001:db8:1:2:aaaa::2')];
    expect(connect('2001:db8:1:2:ffff::3').destroyed).toBe(true);
    expect([first.destroyed, second.destroyed]).toEqual([false, false]);
    expect(connect('2001:db8:1:3::1').destroyed).toBe(false);
    first.destroy();
    expect(connect('2001:db8:1:2::9').destroyed).toBe(false);
    // A dual-stack listener sees an IPv4 client as its IPv4-mapped address: one client either way.
    expect([connect('::ffff:198.51.100.7').destroyed, connect('198.51.100.7').destroyed]).toEqual([false, false]);
    expect(connect('::ffff:198.51.100.7').destroyed).toBe(true);
  });

  it('when more connections than MAX_CONNECTIONS are open, then the next one is closed at once', async () => {
    const { port } = await start({ maxConnections: 2 });
    const allowed = [await rawSocket(port), await rawSocket(port)];
    expect(await closedWithin(await rawSocket(port), 1000)).not.toBeNull();
    for (const socket of allowed) expect(socket.destroyed).toBe(false);
  });

  it('when a connection never starts TLS, then it is closed after TLS_HANDSHAKE_TIMEOUT_MS', async () => {
    const { port } = await start({ tlsHandshakeTimeoutMs: 300 });
    const idle = await rawSocket(port);
    const after = await closedWithin(idle, 3000);
    expect(after).not.toBeNull();
    expect(after!).toBeGreaterThanOrEqual(250);
  });

  it('when a request stops sending its headers, then 408 and the connection is closed after HEADERS_TIMEOUT_MS', async () => {
    const { port } = await start({ headersTimeoutMs: 300, requestTimeoutMs: 300 });
    const socket = await tlsSocket(port);
    const started = Date.now();
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n');
    const answer = await readUntil(socket, /\r\n\r\n/);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await closedWithin(socket, 1000)).not.toBeNull();
  });

  it('when a kept-alive connection stays idle, then it is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const { port } = await start({ keepAliveTimeoutMs: 300 });
    const socket = await tlsSocket(port);
    socket.write(get('/'));
    expect(await readUntil(socket, /ok$/)).toMatch(/Connection: keep-alive/i);
    const after = await closedWithin(socket, 3000);
    expect(after).not.toBeNull();
    expect(after!).toBeGreaterThanOrEqual(250);
  });
});

describe('draining at shutdown', () => {
  it('when draining starts, then idle connections close, a request in flight finishes with Connection: close, and drain resolves', async () => {
    const { port, release } = await start({});
    const idle = await tlsSocket(port);
    idle.write(get('/'));
    expect(await readUntil(idle, /ok$/)).toMatch(/Connection: keep-alive/i);
    const busy = await tlsSocket(port);
    busy.write(get('/slow'));
    await new Promise((resolve) => setTimeout(resolve, 100));

    let drained = false;
    const draining = listener!.drain().then(() => (drained = true));
    expect(await closedWithin(idle, 1000)).not.toBeNull();
    expect(busy.destroyed).toBe(false);
    expect(drained).toBe(false);

    const answer = readUntil(busy, /ok$/);
    release();
    const text = await answer;
    expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(text).toMatch(/Connection: close/i);
    expect(await closedWithin(busy, 1000)).not.toBeNull();
    await draining;
    expect(drained).toBe(true);
  });

  it('when a kept-alive client sends another request while draining, then only the one in flight is answered, with Connection: close', async () => {
    const { port, release } = await start({});
    const socket = await tlsSocket(port);
    socket.write(get('/slow'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const draining = listener!.drain();
    // Pipelined behind the request in flight: it arrives after draining began and is not taken.
    socket.write(get('/'));
    const answers = readUntil(socket, /ok[\s\S]*ok$/);
    release();
    const text = await answers;
    expect(text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(1);
    expect(text).toMatch(/Connection: close/i);
    expect(socket.destroyed || (await closedWithin(socket, 1000)) !== null).toBe(true);
    await draining;
  });
});

describe('TLS session resumption', () => {
  /** A request on a connection offering `session`; its answer, whether the handshake resumed, and the session the server gave. */
  const requestWith = (port: number, maxVersion: tls.SecureVersion, session?: Buffer) =>
    new Promise<{ text: string; reused: boolean; session: Buffer | undefined }>((resolve, reject) => {
      let given: Buffer | undefined;
      let reused = false;
      let text = '';
      const socket = tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false, maxVersion, session }, () => {
        reused = socket.isSessionReused();
        socket.write(`GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      });
      sockets.push(socket);
      // TLS 1.3 sends its tickets after the handshake; by the end of the answer they have arrived.
      socket.on('session', (ticket: Buffer) => {
        given = ticket;
      });
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
      });
      socket.on('error', reject);
      socket.on('close', () => resolve({ text, reused, session: given }));
    });

  it.each(['TLSv1.2', 'TLSv1.3'] as const)(
    'when a client reconnects with its %s session, then the handshake is resumed',
    async (version) => {
      const { port } = await start({});
      const first = await requestWith(port, version);
      expect(first).toMatchObject({ reused: false, text: expect.stringMatching(/^HTTP\/1\.1 200 OK[\s\S]*ok$/) });
      expect(first.session).toBeInstanceOf(Buffer);

      const again = await requestWith(port, version, first.session);
      expect(again).toMatchObject({ reused: true, text: expect.stringMatching(/^HTTP\/1\.1 200 OK[\s\S]*ok$/) });
    },
  );
});
