/**
 * The checkpointer's worker thread (checkpointer.ts says why checkpoints run here): a connection of its own that
 * runs a PASSIVE checkpoint every interval, and starts the WAL over with a RESTART once it has grown past its
 * limit, backing off while a reader keeps the old frames in use.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type Database from 'better-sqlite3';

export interface CheckpointWorkerData {
  file: string;
  /** The module the connection is opened with, resolved by the checkpointer (tests name one that fails). */
  driver: string;
  intervalMs: number;
  restartBytes: number;
  /** How long a RESTART waits for the write lock and for readers before it gives up for now. */
  restartWaitMs: number;
  /** The server's connection's busy timeout, kept for everything but the RESTART. */
  busyTimeoutMs: number;
}

interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const data = workerData as CheckpointWorkerData;
const Driver = createRequire(import.meta.url)(data.driver) as typeof Database;
const db = new Driver(data.file, { fileMustExist: true });
const busyTimeout = () => db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
busyTimeout();
const restartFrames = Math.ceil(data.restartBytes / (db.pragma('page_size', { simple: true }) as number));
const checkpoint = (mode: 'PASSIVE' | 'RESTART') => (db.pragma(`wal_checkpoint(${mode})`) as CheckpointResult[])[0]!;

let tick = 0;
let nextRestart = 0;
/** Intervals to wait before the next RESTART after one gave up: 1, 2, 4 ... 64. */
let backOff = 1;
const timer = setInterval(() => {
  tick++;
  if (checkpoint('PASSIVE').log < restartFrames || tick < nextRestart) return;
  // The first pass copied the bulk; this one copies what was committed meanwhile, so the RESTART has little left.
  checkpoint('PASSIVE');
  db.pragma(`busy_timeout = ${data.restartWaitMs}`);
  const { busy } = checkpoint('RESTART');
  busyTimeout();
  nextRestart = busy ? tick + backOff : 0;
  backOff = busy ? Math.min(backOff * 2, 64) : 1;
}, data.intervalMs);

parentPort?.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
