/**
 * A TCP proxy between a client under test and a real server (PostgreSQL, Redis), so a test can make the server
 * misbehave for its own client only: `hold` stops forwarding bytes while every connection stays open (a server that
 * hangs), `refuse` cuts every connection and every new one (a server that is away), `forward` lets bytes through
 * again. The server itself, which other test files share, never notices.
 */
import { connect, createServer, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'hold' | 'refuse';

export interface TcpProxy {
  /** The port the client under test connects to, on 127.0.0.1. */
  port: number;
  mode(next: ProxyMode): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const pairs = new Set<[Socket, Socket]>();

  const server = createServer((client) => {
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    // Writes by hand rather than pipe(): pipe resumes a paused socket on its own, which would end a hold.
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) {
      socket.on('error', end);
      socket.on('close', end);
      if (mode === 'hold') socket.pause();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    port: (server.address() as { port: number }).port,
    mode(next) {
      mode = next;
      for (const pair of [...pairs]) {
        for (const socket of pair) {
          if (next === 'refuse') socket.destroy();
          else if (next === 'hold') socket.pause();
          else socket.resume();
        }
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of pairs) for (const socket of pair) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
