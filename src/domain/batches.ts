/**
 * Periodic clean-ups (retention purges, expiry sweeps) work through a backlog in short batches. On SQLite a store
 * call runs synchronously, so awaiting it only queues a microtask: without a real turn of the event loop between
 * batches, a large backlog would hold every request until the last batch. `setImmediate` lets the requests waiting
 * on I/O run between two batches.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/**
 * Runs `batch(limit)` until it handles fewer than `limit` items, yielding to the event loop between batches;
 * returns how many it handled in all.
 */
export async function inBatches(limit: number, batch: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const handled = await batch(limit);
    total += handled;
    if (handled < limit) return total;
    await yieldToEventLoop();
  }
}
