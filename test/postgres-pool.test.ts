/**
 * The PostgreSQL pool's clients and the 'error' event (src/store/postgres/database.ts). A server that ends a
 * connection just as it is ready (PostgreSQL's `pg_terminate_backend` on a backend that is starting) sends
 * ReadyForQuery and the FATAL error in one chunk: node-postgres reads both before the code that checked the client
 * out resumes. The server here is a few lines of the wire protocol, so the test needs no database and is exact about
 * the order of the bytes.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPool, inTransaction, isConnectionError } from '../src/store/postgres/database.js';

/** A backend message: its type byte, its length (itself included) and its body. */
const message = (type: string, body: Buffer) => {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};
const authenticationOk = message('R', Buffer.from([0, 0, 0, 0]));
const readyForQuery = message('Z', Buffer.from('I'));
const fields = (entries: Record<string, string>) =>
  Buffer.concat([...Object.entries(entries).map(([field, value]) => Buffer.from(`${field}${value}\0`)), Buffer.from([0])]);
const adminShutdown = message(
  'E',
  fields({ S: 'FATAL', V: 'FATAL', C: '57P01', M: 'terminating connection due to administrator command' }),
);

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A server that accepts the startup, says it is ready and, in the same write, that the session is over. */
async function endsAsItStarts(): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.on('error', () => {});
    socket.once('data', () => {
      socket.end(Buffer.concat([authenticationOk, readyForQuery, adminShutdown]));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  const { port } = server.address() as net.AddressInfo;
  return { url: `postgres://test@127.0.0.1:${port}/test`, connections: () => connections };
}

/** Errors that reach the process as uncaught exceptions while `work` runs and a little after. */
async function uncaughtDuring(work: () => Promise<void>): Promise<unknown[]> {
  const uncaught: unknown[] = [];
  const listeners = process.rawListeners('uncaughtException') as Array<(...args: unknown[]) => void>;
  process.removeAllListeners('uncaughtException');
  const record = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', record);
  try {
    await work();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    process.off('uncaughtException', record);
    for (const listener of listeners) process.on('uncaughtException', listener);
  }
  return uncaught;
}

describe('the PostgreSQL pool when a connection ends as it starts', () => {
  it('when the server ends a new connection in the chunk that says it is ready, then nothing is thrown and the caller hears a connection error', async () => {
    const server = await endsAsItStarts();
    const pool = createPool(server.url, { max: 2 });
    closers.push(() => pool.end());
    let outcome: unknown;
    const uncaught = await uncaughtDuring(async () => {
      outcome = await inTransaction(pool, async () => 'written').catch((error: unknown) => error);
    });
    expect(uncaught).toEqual([]);
    expect(isConnectionError(outcome)).toBe(true);
    expect(server.connections()).toBe(1);
  });

  it('when that happens to many checkouts at once, then each is answered with a connection error and the pool opens fresh connections', async () => {
    const server = await endsAsItStarts();
    const pool = createPool(server.url, { max: 4 });
    closers.push(() => pool.end());
    let outcomes: unknown[] = [];
    const uncaught = await uncaughtDuring(async () => {
      outcomes = await Promise.all(
        Array.from({ length: 12 }, () => inTransaction(pool, async () => 'written').catch((error: unknown) => error)),
      );
    });
    expect(uncaught).toEqual([]);
    expect(outcomes.every(isConnectionError)).toBe(true);
    expect(server.connections()).toBe(12);
  });
});
