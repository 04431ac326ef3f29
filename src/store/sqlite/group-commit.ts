/**
 * Group commit for SQLite: changes queued while the event loop handles one round of I/O are written in a single
 * transaction, each in its own savepoint.
 *
 * A commit in WAL mode writes every page the transaction changed. A submission touches about thirty B-tree
 * pages (the row and its indexes, its events, its aggregates), most of them the same pages the next submission
 * touches: committed one by one, each rewrites them; committed together, they are written once. Each change
 * still succeeds or fails alone: its savepoint is rolled back when it throws, and its promise rejects with that
 * error, while the others commit. A promise resolves only after the commit, so an answer never reports a change
 * that could still be lost. When the commit itself fails, every change in the group rejects with its error.
 */
import type Database from 'better-sqlite3';

/** The most changes one transaction holds: it runs synchronously, so its size bounds how long it blocks the loop. */
export const maxGroupSize = 64;

interface Pending {
  change: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface GroupCommit {
  /** Queues the change; resolves with its result once the group holding it has committed. */
  run<R>(change: () => R): Promise<R>;
  /** Commits every queued change now (before the connection closes). */
  flush(): void;
}

export function groupCommit(db: Database.Database): GroupCommit {
  let queue: Pending[] = [];
  let scheduled = false;

  const commit = () => {
    const group = queue.slice(0, maxGroupSize);
    queue = queue.slice(group.length);
    if (group.length === 0) return;
    const outcomes: Outcome[] = [];
    try {
      db.transaction(() => {
        for (const { change } of group) {
          try {
            // Nested in the group's transaction, better-sqlite3 runs it in a savepoint, rolled back if it throws.
            outcomes.push({ ok: true, value: db.transaction(change)() });
          } catch (error) {
            // Some errors (a full disk, an I/O error) make SQLite roll back the whole transaction, not the
            // savepoint: the changes before this one are gone too, and the rest would each commit on their own.
            if (!db.inTransaction) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      }).immediate();
    } catch (error) {
      for (const pending of group) pending.reject(error);
      return;
    }
    group.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  };
  const next = () => {
    scheduled = false;
    commit();
    if (queue.length > 0) schedule();
  };
  const schedule = () => {
    scheduled = true;
    // After the I/O callbacks of this loop turn: the requests that arrived together are committed together.
    setImmediate(next);
  };

  return {
    run: <R>(change: () => R) =>
      new Promise<R>((resolve, reject) => {
        queue.push({ change, resolve: resolve as (value: unknown) => void, reject });
        if (!scheduled) schedule();
      }),
    flush() {
      while (queue.length > 0) commit();
    },
  };
}
