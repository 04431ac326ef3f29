/**
 * The process's logger, built one way for the server and the benchmark. Lines go out through pino's asynchronous
 * destination: a request does not wait for its log line's write, and lines that arrive while a write is under way
 * leave together in the next one. pino writes what is still buffered synchronously when the process exits, and
 * the server flushes it on shutdown.
 */
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

/** `destination`: a file descriptor (standard output by default) or a file path. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination: number | string = 1): Logger {
  return pino({ level: config.logLevel }, pino.destination({ dest: destination, sync: false }));
}
