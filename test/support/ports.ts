/** Whether something accepts TCP connections on a port of this machine, for tests that start and stop servers. */
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

/** True when a connection to the port is accepted within a second. */
export const accepts = (port: number, host = '127.0.0.1') =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, host);
    const settle = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.once('connect', () => settle(true)).once('error', () => settle(false));
    socket.setTimeout(1000, () => settle(false));
  });

/** Polls until the port accepts connections (`open`) or refuses them; false if that did not happen within `ms`. */
export async function portBecomes(port: number, open: boolean, ms: number, host = '127.0.0.1'): Promise<boolean> {
  for (const started = Date.now(); (await accepts(port, host)) !== open; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() - started > ms) return false;
  }
  return true;
}

/**
 * A port for a child process to listen on, chosen below the kernel's ephemeral range (ports 32768 and up by default),
 * tried until one binds. A port from `listen(0)` comes from that range, and in the gap before the child binds it,
 * any outgoing connection (the suite makes thousands) or another worker's `listen(0)` could take it: a child then
 * failed with EADDRINUSE, or a test spoke to another test's server that answered on its port.
 */
export async function freePort(): Promise<number> {
  const floor = 10_000;
  const ceiling = Math.min(ephemeralStart(), 32_768);
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = floor + Math.floor(Math.random() * (ceiling - floor));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${floor} and ${ceiling}`);
}

function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
