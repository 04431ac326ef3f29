import type { ApiKeyStore } from '../../store/types.js';
import type { LastUsedRecorder } from './authenticate.js';

/**
 * Coalesces `last_used_at` writes to at most one per key per interval, without losing the latest use:
 * the newest time is kept in memory and written by `flush` (on a timer and at shutdown). A use that starts an
 * interval is written at once, without holding up its request; `flush` waits for those writes too, so once it
 * resolves every use recorded before it is in the store (and a store closed after it has no write still on its way).
 */
export function coalescedLastUsed(store: ApiKeyStore, intervalMs = 60_000): LastUsedRecorder & { flush(): Promise<void> } {
  const written = new Map<string, number>();
  const pending = new Map<string, string>();
  const writing = new Set<Promise<void>>();
  return {
    record(keyId, at) {
      const last = written.get(keyId);
      const atMs = Date.parse(at);
      if (last === undefined || atMs - last >= intervalMs) {
        written.set(keyId, atMs);
        pending.delete(keyId);
        // A failed write is retried by the next flush rather than lost, unless a newer use is pending by then.
        const write = store
          .touch(keyId, at)
          .catch(() => void (pending.has(keyId) || pending.set(keyId, at)))
          .finally(() => writing.delete(write));
        writing.add(write);
      } else {
        pending.set(keyId, at);
      }
    },
    async flush() {
      await Promise.all(writing);
      for (const [keyId, at] of [...pending]) {
        // Removed only once written: a failed write stays pending for the next flush.
        await store.touch(keyId, at);
        written.set(keyId, Date.parse(at));
        if (pending.get(keyId) === at) pending.delete(keyId);
      }
    },
  };
}
