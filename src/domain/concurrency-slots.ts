/**
 * Bounds on work that holds the server for long: an export stream lasts as long as its client reads, and a `q`
 * search reads up to its cap of rows. A rate limit counts requests, not how long each one holds memory, sockets
 * and the store, so a few such requests from one workspace could slow every other. These bounds count the work
 * in progress instead, per workspace (and per key for exports), in this process: with several processes each
 * holds its own counts, so the bounds are per process.
 */
import { rateLimited } from './errors.js';

export interface ConcurrencySettings {
  /** Export streams one key (or OAuth grant) may hold open at a time. */
  exportsPerKey: number;
  /** Export streams one workspace may hold open at a time, over all its keys. */
  exportsPerWorkspace: number;
  /** A streamed response whose written data has not drained for this long is cut off: its client stopped reading. */
  streamStallTimeoutMs: number;
  /** `q` scans of one workspace that run at a time; more wait in its queue. */
  scansPerWorkspace: number;
  /** `q` scans of one workspace that may wait for a turn; beyond them a search is refused. */
  scanQueuePerWorkspace: number;
}

export const defaultConcurrency: Readonly<ConcurrencySettings> = {
  exportsPerKey: 2,
  exportsPerWorkspace: 4,
  streamStallTimeoutMs: 30_000,
  scansPerWorkspace: 2,
  scanQueuePerWorkspace: 4,
};

/**
 * What a refused export or search tells the client to wait. An export's slot frees when another download ends,
 * which the server cannot foresee, so this is a polite poll interval; a queued scan is done within a second or two.
 */
export const EXPORT_RETRY_AFTER_SECONDS = 10;
export const SCAN_RETRY_AFTER_SECONDS = 1;

/** A held unit of work; releasing it more than once is harmless, so every way a stream ends may release it. */
export interface Slot {
  release(): void;
}

/** How many units each owner holds, up to `limit`; an owner holding none is forgotten, so the map stays small. */
class Counts {
  readonly #held = new Map<string, number>();
  constructor(readonly limit: number) {}

  held(owner: string): number {
    return this.#held.get(owner) ?? 0;
  }

  isFull(owner: string): boolean {
    return this.held(owner) >= this.limit;
  }

  take(owner: string): void {
    this.#held.set(owner, this.held(owner) + 1);
  }

  give(owner: string): void {
    const left = this.held(owner) - 1;
    if (left > 0) this.#held.set(owner, left);
    else this.#held.delete(owner);
  }
}

function onceOnly(release: () => void): Slot {
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      release();
    },
  };
}

/** Open export streams per key and per workspace. */
export class ExportSlots {
  readonly #perKey: Counts;
  readonly #perWorkspace: Counts;

  constructor(settings: Pick<ConcurrencySettings, 'exportsPerKey' | 'exportsPerWorkspace'>) {
    this.#perKey = new Counts(settings.exportsPerKey);
    this.#perWorkspace = new Counts(settings.exportsPerWorkspace);
  }

  /** Takes a slot of the key and one of its workspace together, or throws 429 `too_many_exports` and takes neither. */
  take(workspaceId: string, credentialId: string): Slot {
    if (this.#perKey.isFull(credentialId)) {
      throw rateLimited(`More than ${this.#perKey.limit} exports at a time with this key`, EXPORT_RETRY_AFTER_SECONDS, 'too_many_exports');
    }
    if (this.#perWorkspace.isFull(workspaceId)) {
      throw rateLimited(
        `More than ${this.#perWorkspace.limit} exports at a time in this workspace`,
        EXPORT_RETRY_AFTER_SECONDS,
        'too_many_exports',
      );
    }
    this.#perKey.take(credentialId);
    this.#perWorkspace.take(workspaceId);
    return onceOnly(() => {
      this.#perKey.give(credentialId);
      this.#perWorkspace.give(workspaceId);
    });
  }

  /** Open exports of a workspace (what tests and the bench watch). */
  heldBy(workspaceId: string): number {
    return this.#perWorkspace.held(workspaceId);
  }
}

/**
 * `q` scans per workspace: a few run, a few more wait their turn in arrival order, the rest are refused. Waiting
 * rather than refusing at once keeps a short burst of searches from one page load working; the queue's bound
 * keeps a flood from holding sockets open behind it.
 */
export class ScanTurns {
  readonly #running: Counts;
  readonly #queueLimit: number;
  readonly #waiting = new Map<string, Array<() => void>>();

  constructor(settings: Pick<ConcurrencySettings, 'scansPerWorkspace' | 'scanQueuePerWorkspace'>) {
    this.#running = new Counts(settings.scansPerWorkspace);
    this.#queueLimit = settings.scanQueuePerWorkspace;
  }

  /**
   * Runs `scan` in its turn among the workspace's scans, or throws 429 `too_many_searches` when the queue is full.
   * `alwaysWait`: queue beyond the bound instead, for a download already under way, which a refusal would break
   * (exports are bounded by their own slots, so such waiters stay few).
   */
  async run<T>(workspaceId: string, scan: () => Promise<T>, { alwaysWait = false } = {}): Promise<T> {
    await this.#turn(workspaceId, alwaysWait);
    try {
      return await scan();
    } finally {
      this.#next(workspaceId);
    }
  }

  /** Scans of a workspace running and waiting (what tests and the bench watch). */
  heldBy(workspaceId: string): { running: number; waiting: number } {
    return { running: this.#running.held(workspaceId), waiting: this.#waiting.get(workspaceId)?.length ?? 0 };
  }

  #turn(workspaceId: string, alwaysWait: boolean): Promise<void> | undefined {
    if (!this.#running.isFull(workspaceId)) {
      this.#running.take(workspaceId);
      return undefined;
    }
    const queue = this.#waiting.get(workspaceId) ?? [];
    if (queue.length >= this.#queueLimit && !alwaysWait) {
      throw rateLimited(
        `More than ${this.#running.limit + this.#queueLimit} searches with q at a time in this workspace`,
        SCAN_RETRY_AFTER_SECONDS,
        'too_many_searches',
      );
    }
    this.#waiting.set(workspaceId, queue);
    // The running count is handed over, not given back and taken again, so no newcomer can slip in between.
    return new Promise<void>((resolve) => queue.push(resolve));
  }

  #next(workspaceId: string): void {
    const queue = this.#waiting.get(workspaceId);
    const waiter = queue?.shift();
    if (queue?.length === 0) this.#waiting.delete(workspaceId);
    if (waiter) waiter();
    else this.#running.give(workspaceId);
  }
}

/** The bounds of one app, made from its settings. */
export interface ConcurrencyLimits {
  exports: ExportSlots;
  scans: ScanTurns;
  streamStallTimeoutMs: number;
}

export function concurrencyLimits(settings: ConcurrencySettings = defaultConcurrency): ConcurrencyLimits {
  return { exports: new ExportSlots(settings), scans: new ScanTurns(settings), streamStallTimeoutMs: settings.streamStallTimeoutMs };
}

/** Opens a stream while holding `slot`: released at once if opening fails (a problem answer), else when the stream is over. */
export async function streamHolding<T>(slot: Slot, open: () => Promise<AsyncIterable<T>>): Promise<AsyncIterable<T>> {
  try {
    return releasedWhenDone(await open(), slot);
  } catch (error) {
    slot.release();
    throw error;
  }
}

/** Where an app set no bounds (operator commands, tests that build their own services). */
export const unbounded: Slot = { release() {} };

/**
 * The same chunks, with `slot` released once the stream is over however it ends: read to the end, failed, or
 * abandoned (`return`, which the writer calls when its client went away or stalled). Not a generator's `finally`:
 * that never runs for a generator that was abandoned before its first chunk.
 */
export function releasedWhenDone<T>(chunks: AsyncIterable<T>, slot: Slot): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = chunks[Symbol.asyncIterator]();
      return {
        async next() {
          try {
            const next = await iterator.next();
            if (next.done) slot.release();
            return next;
          } catch (error) {
            slot.release();
            throw error;
          }
        },
        async return(value?: unknown) {
          slot.release();
          return (await iterator.return?.(value)) ?? { done: true, value: undefined };
        },
      };
    },
  };
}
