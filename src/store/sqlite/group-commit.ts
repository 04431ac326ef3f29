/**
 * Group commit for SQLite: changes queued while the event loop handles one round of I/O are written in a single
 * transaction.
 *
 * A commit in WAL mode writes every page the transaction changed. A submission touches about thirty B-tree
 * pages (the row and its indexes, its events, its aggregates), most of them the same pages the next submission
 * touches: committed one by one, each rewrites them; committed together, they are written once. Each change
 * still succeeds or fails alone. The group's changes first run together in one savepoint; when one throws, that
 * savepoint is rolled back and they run again, each in a savepoint of its own: the one that throws is rolled back
 * and its promise rejects with that error, while the others commit. (So a change may run twice, and must not act
 * outside the database; a failing change costs its group a second run.) A promise resolves only after the commit,
 * so an answer never reports a change that could still be lost. When the commit itself fails, every change in the
 * group rejects with its error.
 *
 * When the group cannot even begin (SQLITE_BUSY on BEGIN IMMEDIATE: nothing of it has run), it is tried again a few
 * milliseconds later, without holding the event loop, for as long as the connection's busy timeout. SQLite's own
 * busy handler usually does that waiting inside BEGIN, but not always: under load, with the checkpointer restarting
 * the WAL, a BEGIN has failed long before the busy timeout, and every submission of its group got a 500
 * (docs/internals/group-commit.md). A lock that stays taken past the timeout still rejects the group.
 *
 * Another writer of the file (`npm run admin`) is waited out as above while it holds the write lock; a second
 * server on the file, whose groups would contend with these on every turn, is refused when it opens it
 * (server-lease.ts).
 */
import type Database from 'better-sqlite3';
import { transaction } from './statements.js';

/** The most changes one transaction holds: it runs synchronously, so its size bounds how long it blocks the loop. */
export const maxGroupSize = 64;

/** How long a group that could not begin waits before it is tried again. */
export const busyRetryDelayMs = 5;

interface Pending {
  change: () => unknown;
  kept: ((value: unknown) => void) | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** Until when the change may wait for a group that could not begin (performance.now() milliseconds). */
  retryUntil: number;
}

const isBusy = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY');

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Work a group's changes leave for its end (sums of additions, see funnel-tally.ts): written in the group's
 * transaction after its last change, before COMMIT, or discarded when the group does not commit.
 */
export interface EndOfGroup {
  write(): void;
  discard(): void;
}

export interface GroupCommit {
  /**
   * Queues the change; resolves with its result once the group holding it has committed. `kept` runs with the
   * result once the change is part of the group (its savepoint, or the group's, is released), in the group's
   * transaction: it may only record what the group's end writes, and must not throw.
   */
  run<R>(change: () => R, kept?: (result: R) => void): Promise<R>;
  /** Adds work to the end of every group. */
  atEndOfGroup(work: EndOfGroup): void;
  /** Commits every queued change now (before the connection closes). */
  flush(): void;
}

export function groupCommit(db: Database.Database, options: { busyRetryMs?: number } = {}): GroupCommit {
  // As long as the connection's busy timeout (the wait SQLite itself would allow).
  const busyRetryMs = options.busyRetryMs ?? (db.pragma('busy_timeout', { simple: true }) as number);
  let queue: Pending[] = [];
  let scheduled = false;
  const endOfGroup: EndOfGroup[] = [];

  /**
   * The group's changes in one savepoint: their results, or undefined when one threw and the savepoint was rolled
   * back (then each runs again in a savepoint of its own). A savepoint makes SQLite keep the original of each page
   * it changes: one for the group keeps each page once, one per change kept the pages every change shares (the
   * indexes' last leaves) once per change. With one for the group, a create's SQL costs about what it costs with no
   * savepoint at all (docs/internals/group-commit.md has the trace).
   */
  const allTogether = (group: Pending[]): unknown[] | undefined => {
    try {
      return transaction(db, 'deferred', () =>
        group.map(({ change }) => {
          const value = change();
          // As better-sqlite3 refuses for a change run alone: its writes would commit before its promise settles.
          if (typeof (value as { then?: unknown } | null)?.then === 'function')
            throw new TypeError('A grouped change cannot return a promise');
          return value;
        }),
      );
    } catch (error) {
      if (!db.inTransaction) throw error;
      return undefined;
    }
  };

  /** Commits the next group; 'busy' when it could not begin and is back at the head of the queue. */
  const commit = (mayRetry: boolean): 'busy' | undefined => {
    const group = queue.slice(0, maxGroupSize);
    queue = queue.slice(group.length);
    if (group.length === 0) return;
    const outcomes: Outcome[] = [];
    let begun = false;
    try {
      transaction(db, 'immediate', () => {
        begun = true;
        // A change alone gains nothing from the shared savepoint, and would run twice when it fails.
        const values = group.length > 1 ? allTogether(group) : undefined;
        if (values) {
          values.forEach((value, index) => {
            group[index]!.kept?.(value);
            outcomes.push({ ok: true, value });
          });
        } else {
          for (const { change, kept } of group) {
            try {
              // Nested in the group's transaction, better-sqlite3 runs it in a savepoint, rolled back if it throws.
              const value = transaction(db, 'deferred', change);
              kept?.(value);
              outcomes.push({ ok: true, value });
            } catch (error) {
              // Some errors (a full disk, an I/O error) make SQLite roll back the whole transaction, not the
              // savepoint: the changes before this one are gone too, and the rest would each commit on their own.
              if (!db.inTransaction) throw error;
              outcomes.push({ ok: false, error });
            }
          }
        }
        for (const work of endOfGroup) work.write();
      });
    } catch (error) {
      for (const work of endOfGroup) work.discard();
      if (!begun && mayRetry && isBusy(error)) {
        // Each change waits for as long as its own window: those past it reject, the others go back to the head.
        const now = performance.now();
        const waiting = group.filter((pending) => now < pending.retryUntil);
        for (const pending of group) if (now >= pending.retryUntil) pending.reject(error);
        queue = [...waiting, ...queue];
        return waiting.length > 0 ? 'busy' : undefined;
      }
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
    if (commit(true) === 'busy') {
      scheduled = true;
      setTimeout(next, busyRetryDelayMs);
    } else if (queue.length > 0) schedule();
  };
  const schedule = () => {
    scheduled = true;
    // After the I/O callbacks of this loop turn: the requests that arrived together are committed together.
    setImmediate(next);
  };

  return {
    run: <R>(change: () => R, kept?: (result: R) => void) =>
      new Promise<R>((resolve, reject) => {
        queue.push({
          change,
          kept: kept as ((value: unknown) => void) | undefined,
          resolve: resolve as (value: unknown) => void,
          reject,
          retryUntil: performance.now() + busyRetryMs,
        });
        if (!scheduled) schedule();
      }),
    atEndOfGroup(work) {
      endOfGroup.push(work);
    },
    flush() {
      // Synchronous (the connection closes next): SQLite's busy handler is the only wait.
      while (queue.length > 0) commit(false);
    },
  };
}
