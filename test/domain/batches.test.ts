import { describe, expect, it } from 'vitest';
import { inBatches } from '../../src/domain/batches.js';
import { purgeExpiredEvents } from '../../src/domain/event-feed/service.js';
import type { Services } from '../../src/domain/services.js';

/** A batch that does its work synchronously (as the SQLite store does), logging each call. */
const synchronousBatches = (sizes: number[], log: string[]) => {
  let call = 0;
  return async (limit: number) => {
    log.push(`batch ${call + 1}`);
    return Math.min(sizes[call++] ?? 0, limit);
  };
};

describe('inBatches', () => {
  it('when every batch is full, then it runs until a short one, and a timer due meanwhile runs between two batches', async () => {
    const log: string[] = [];
    setImmediate(() => log.push('timer'));
    const total = await inBatches(10, synchronousBatches([10, 10, 4], log));
    expect(total).toBe(24);
    expect(log).toEqual(['batch 1', 'timer', 'batch 2', 'batch 3']);
  });

  it('when the first batch is short, then it stops there without waiting', async () => {
    const log: string[] = [];
    expect(await inBatches(10, synchronousBatches([3], log))).toBe(3);
    expect(log).toEqual(['batch 1']);
  });
});

describe('purgeExpiredEvents', () => {
  it('when the backlog takes several batches, then a request waiting on the event loop is served between them', async () => {
    const log: string[] = [];
    const batches = synchronousBatches([1000, 1000, 0], log);
    const store = { events: { purgeBefore: (_before: string, limit: number) => batches(limit) } } as unknown as Services['store'];
    setImmediate(() => log.push('request'));
    expect(await purgeExpiredEvents({ store, now: () => new Date() })).toBe(2000);
    expect(log).toEqual(['batch 1', 'request', 'batch 2', 'batch 3']);
  });
});
