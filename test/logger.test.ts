/**
 * The process logger writes asynchronously: lines must still all arrive, at the level asked for.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

const dir = mkdtempSync(join(tmpdir(), 'form-funnel-logger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('when many lines are logged and the logger is flushed, then every line at or above the level is in the file, in order', async () => {
  const file = join(dir, 'requests.log');
  const log = createLogger({ logLevel: 'info' }, file);
  for (let index = 0; index < 500; index++) log.info({ index }, 'request');
  log.debug('below the level');
  await new Promise<void>((resolve, reject) => log.flush((error) => (error ? reject(error) : resolve())));
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { index?: number; msg: string; level: number });
  expect(lines.map((line) => line.index)).toEqual(Array.from({ length: 500 }, (_, index) => index));
  expect(lines.every((line) => line.msg === 'request' && line.level === 30)).toBe(true);
});
