/** Whether something accepts TCP connections on a port of this machine, for tests that start and stop servers. */
import { connect } from 'node:net';

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
