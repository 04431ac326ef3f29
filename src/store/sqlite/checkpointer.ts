/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit that crosses its
 * threshold (1,000 pages): that request, and every request queued behind it on the loop, waits while pages
 * are copied from the WAL into the database file. Here the server's connection never checkpoints; a worker
 * thread with a connection of its own runs a PASSIVE checkpoint every `intervalMs`, which neither blocks the
 * writer nor waits for readers, and the writer starts the WAL over once a checkpoint has copied all of it.
 * Checkpointing often also copies each hot page (an index's last leaf) once per interval rather than once per
 * thousand pages written.
 *
 * The writer starts the WAL over only when it finds every frame already copied. Under a steady stream of
 * commits it never does: each passive checkpoint copies the frames that were there when it began, and by the time
 * it ends more have been committed. The WAL then grows for as long as the stream lasts, and with it the disk,
 * the copying and the frames a read has to look through (docs/internals/wal-checkpointer.md). So once
 * the WAL holds more than `walSizeLimitBytes`, the worker copies it twice passively (the first pass copies the
 * bulk, the second what was committed meanwhile) and then runs a RESTART checkpoint, which holds the write lock
 * while it syncs and copies the frames left, waits for readers of the old frames to finish, and starts the WAL
 * over. A commit arriving in that moment waits in SQLite's busy handler, synchronously, and the event loop with
 * it: two syncs, rounded up to the handler's steps (1, 2, 5, 10, 15, 20 ms...), once per `walSizeLimitBytes`
 * written, against a WAL that would otherwise grow without bound. The first commit after the restart truncates
 * the file to `journal_size_limit`.
 *
 * The wait for readers is what could make that moment long: another connection's read transaction (`npm run
 * admin`, a backup, a shell on the file) keeps the old frames in use, and the RESTART would hold the write lock
 * for as long as the busy timeout allows. So it runs with a busy timeout of `restartWaitMs`; when it gives up
 * (busy), the checkpoint still copied what it could, and the RESTART is tried again after 1, 2, 4 ... up to 64
 * intervals, so a reader that stays open costs the writer at most one short wait per back-off.
 *
 * If the worker cannot start or fails, the connection goes back to automatic checkpoints, so the WAL stays
 * bounded either way.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { CheckpointWorkerData } from './checkpoint-worker.js';

export const checkpointIntervalMs = 500;
/** SQLite's default threshold, restored when the worker is gone. */
const automaticCheckpointPages = 1000;
const walSizeLimitBytes = 64 * 1024 * 1024;
/** How long a RESTART checkpoint waits for the write lock and for readers before it gives up for now. */
const restartWaitMs = 20;

/**
 * The worker thread for the module beside this one (checkpoint-worker). Compiled, that is a .js file Node runs as
 * it is. Run from source (tsx, the tests), it is the .ts file, which Node 20 does not load in a thread even with
 * `--import tsx` among the thread's options (the loader is not applied to the thread's entry): the thread instead
 * starts on one line that loads the file through tsx's require API, which hooks the thread's own `require`.
 * A thread inherits the process's options; `--input-type` (a process started with `-e`) would make Node refuse
 * the thread's entry, so it is left out.
 */
function startWorker(workerData: CheckpointWorkerData): Worker {
  const execArgv = process.execArgv.filter(
    (option, index, options) => !option.startsWith('--input-type') && options[index - 1] !== '--input-type',
  );
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData, execArgv });
  const entry = JSON.stringify(fileURLToPath(new URL('./checkpoint-worker.ts', import.meta.url)));
  const api = JSON.stringify(createRequire(import.meta.url).resolve('tsx/cjs/api'));
  return new Worker(`require(${api}).require(${entry}, ${entry})`, { eval: true, workerData, execArgv });
}

export interface Checkpointer {
  /** Stops the worker and waits for it; the connection's own close then checkpoints what is left. */
  close(): Promise<void>;
}

export interface CheckpointOptions {
  intervalMs?: number;
  /** The WAL size past which the worker starts the WAL over itself (default `walSizeLimitBytes`). */
  restartBytes?: number;
  /** The module the worker opens its connection with (tests name one that fails). */
  driver?: string;
}

export function checkpointInBackground(db: Database.Database, options: CheckpointOptions = {}): Checkpointer {
  const {
    intervalMs = checkpointIntervalMs,
    restartBytes = walSizeLimitBytes,
    driver = createRequire(import.meta.url).resolve('better-sqlite3'),
  } = options;
  let worker: Worker;
  try {
    const workerData: CheckpointWorkerData = {
      file: db.name,
      driver,
      intervalMs,
      restartBytes,
      restartWaitMs,
      busyTimeoutMs: db.pragma('busy_timeout', { simple: true }) as number,
    };
    worker = startWorker(workerData);
  } catch {
    // No worker (threads unavailable): SQLite's automatic checkpoints stay as they are.
    return { close: async () => {} };
  }
  db.pragma(`journal_size_limit = ${walSizeLimitBytes}`);
  db.pragma('wal_autocheckpoint = 0');
  // A server that exits without closing the store must not be kept alive by its checkpointer.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let closing = false;
  const fallBack = () => {
    if (!closing && db.open) db.pragma(`wal_autocheckpoint = ${automaticCheckpointPages}`);
  };
  worker.once('error', fallBack);
  worker.once('exit', fallBack);
  return {
    async close() {
      closing = true;
      // Referenced again, so the process waits for the worker's exit instead of leaving with nothing to do.
      worker.ref();
      worker.postMessage('close');
      await exited;
    },
  };
}
