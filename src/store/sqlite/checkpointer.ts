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
 * it ends more have been committed. The WAL then grows for as long as the stream lasts (at 600 submissions a
 * second, by 1.4 GB in 20 s), and with it the disk, the copying and the frames a read has to look through. So once
 * the WAL holds more than `walSizeLimitBytes`, the worker copies it twice passively (the first pass copies the
 * bulk, the second what was committed meanwhile) and then runs a RESTART checkpoint, which holds the write lock
 * while it syncs and copies the frames left, waits for readers of the old frames to finish, and starts the WAL
 * over. A commit arriving in that moment waits in SQLite's busy handler, synchronously, and the event loop with
 * it: two syncs, rounded up to the handler's steps (1, 2, 5, 10, 15, 20 ms...). Measured with a commit every 2 ms,
 * the slowest commit in a thousand took 78 ms instead of 9-12 ms, once per `walSizeLimitBytes` written, against a
 * WAL that otherwise grew by a gigabyte in 15 s. The first commit after the restart truncates the file to
 * `journal_size_limit`.
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
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

export const checkpointIntervalMs = 500;
/** SQLite's default threshold, restored when the worker is gone. */
const automaticCheckpointPages = 1000;
const walSizeLimitBytes = 64 * 1024 * 1024;
/** How long a RESTART checkpoint waits for the write lock and for readers before it gives up for now. */
const restartWaitMs = 20;

// Plain JavaScript evaluated in the worker, so it runs the same under tsx and compiled.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
// The server's connection's busy timeout (database.ts), except while a RESTART waits.
const busyTimeout = () => db.pragma(\`busy_timeout = \${workerData.busyTimeoutMs}\`);
busyTimeout();
const restartFrames = Math.ceil(workerData.restartBytes / db.pragma('page_size', { simple: true }));
const passive = () => db.pragma('wal_checkpoint(PASSIVE)')[0];
let tick = 0;
let nextRestart = 0;
let backOff = 1;
const timer = setInterval(() => {
  tick++;
  if (passive().log < restartFrames || tick < nextRestart) return;
  passive();
  db.pragma(\`busy_timeout = \${workerData.restartWaitMs}\`);
  const { busy } = db.pragma('wal_checkpoint(RESTART)')[0];
  busyTimeout();
  nextRestart = busy ? tick + backOff : 0;
  backOff = busy ? Math.min(backOff * 2, 64) : 1;
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

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
    worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        file: db.name,
        driver,
        intervalMs,
        restartBytes,
        restartWaitMs,
        busyTimeoutMs: db.pragma('busy_timeout', { simple: true }),
      },
    });
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
