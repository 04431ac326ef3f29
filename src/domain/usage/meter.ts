/**
 * Counts the API requests of live keys in memory, per workspace and month, and adds them to the store in batches.
 * A request must never wait on a database write to be counted: counting is a map increment, and `flush` (on a
 * timer, when a usage figure is read, and at shutdown) turns a few seconds of traffic into one additive upsert per
 * workspace. A flush that fails keeps its counts for the next one, so a database hiccup loses nothing.
 */
import type { ApiRequestCount, UsageStore } from '../../store/usage-store.js';

export interface ApiRequestMeter {
  count(workspaceId: string, at: Date): void;
  flush(): Promise<void>;
}

/** How often servers add their counts; usage figures may lag the latest requests by this much. */
export const USAGE_FLUSH_INTERVAL_MS = 5000;

/** The month of the last call, as text: every request is counted in it, and it changes once a month. */
let lastMonth = { key: Number.NaN, text: '' };
/** `YYYY-MM` of a time, in UTC. */
export const monthOf = (at: Date): string => {
  const key = at.getUTCFullYear() * 12 + at.getUTCMonth();
  if (key !== lastMonth.key) lastMonth = { key, text: at.toISOString().slice(0, 7) };
  return lastMonth.text;
};

export function apiRequestMeter(store: Pick<UsageStore, 'addApiRequests'>): ApiRequestMeter {
  let pending = new Map<string, ApiRequestCount>();
  let flushing: Promise<void> = Promise.resolve();

  const add = (workspaceId: string, month: string, count: number) => {
    const key = `${workspaceId} ${month}`;
    const entry = pending.get(key);
    if (entry) entry.count += count;
    else pending.set(key, { workspaceId, month, count });
  };

  const flushOnce = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await store.addApiRequests([...batch.values()]);
    } catch (error) {
      for (const entry of batch.values()) add(entry.workspaceId, entry.month, entry.count);
      throw error;
    }
  };

  return {
    count: (workspaceId, at) => add(workspaceId, monthOf(at), 1),
    // One flush at a time: two overlapping ones could otherwise restore a failed batch after a later success.
    flush: () => {
      flushing = flushing.catch(() => {}).then(flushOnce);
      return flushing;
    },
  };
}
