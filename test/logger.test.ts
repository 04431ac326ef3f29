/**
 * The process logger writes asynchronously: lines must still all arrive, at the level asked for.
 */
import type { EventEmitter } from 'node:events';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

const dir = mkdtempSync(join(tmpdir(), 'form-funnel-logger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('when many lines are logged and the destination ends, then every line at or above the level is in the file, in order', async () => {
  const file = join(dir, 'requests.log');
  const log = createLogger({ logLevel: 'info' }, file);
  // The file opens asynchronously too; a flush before it is open has nothing to wait for.
  const destination = (log as unknown as Record<symbol, EventEmitter>)[pino.symbols.streamSym]!;
  await once(destination, 'ready');
  for (let index = 0; index < 500; index++) log.info({ index }, 'request');
  log.debug('below the level');
  // What pino does when the process exits: the rest of the buffer is written before the file closes.
  const closed = once(destination, 'close');
  (destination as EventEmitter & { end(): void }).end();
  await closed;
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { index?: number; msg: string; level: number });
  expect(lines.map((line) => line.index)).toEqual(Array.from({ length: 500 }, (_, index) => index));
  expect(lines.every((line) => line.msg === 'request' && line.level === 30)).toBe(true);
});
