import type { ApiKeyStore } from '../../store/types.js';
import type { LastUsedRecorder } from './authenticate.js';

/**
 * Coalesces `last_used_at` writes to at most one per key per interval, without losing the latest use:
 * the newest time is kept in memory and written by `flush` (on a timer and at shutdown). A use that starts an
 * interval is written at once, without holding up its request; `flush` waits for those writes too, so once it
 * resolves every use recorded before it is in the store (and a store closed after it has no write still on its way).
 */
export function coalescedLastUsed(store: Pick<ApiKeyStore, 'touch'>, intervalMs = 60_000): LastUsedRecorder & { flush(): Promise<void> } {
  const written = new Map<string, number>();
  // The newest use not yet written, as a time in milliseconds: it becomes text only when it is written (most uses
  // never are; every request records one).
  const pending = new Map<string, number>();
  const writing = new Set<Promise<void>>();
  return {
    record(keyId, at) {
      const last = written.get(keyId);
      const atMs = at.getTime();
      if (last === undefined || atMs - last >= intervalMs) {
        written.set(keyId, atMs);
        pending.delete(keyId);
        // A failed write is retried by the next flush rather than lost, unless a newer use is pending by then.
        const write = store
          .touch(keyId, at.toISOString())
          .catch(() => void (pending.has(keyId) || pending.set(keyId, atMs)))
          .finally(() => writing.delete(write));
        writing.add(write);
      } else {
        pending.set(keyId, atMs);
      }
    },
    async flush() {
      await Promise.all(writing);
      for (const [keyId, atMs] of [...pending]) {
        // Removed only once written: a failed write stays pending for the next flush.
        await store.touch(keyId, new Date(atMs).toISOString());
        written.set(keyId, atMs);
        if (pending.get(keyId) === atMs) pending.delete(keyId);
      }
    },
  };
}
