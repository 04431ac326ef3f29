/**
 * `WORKERS` above 1: this process becomes the cluster's primary. It serves nothing itself; it forks the workers
 * (each runs the whole server on the shared port, the primary handing connections out in turn), replaces a
 * worker that dies while serving, and on SIGTERM or SIGINT has every worker drain (stop accepting, finish
 * in-flight requests and webhook attempts, close its connections) before it exits itself.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

/** What a worker tells the primary once its listeners are open. */
export interface WorkerListening {
  kind: 'listening';
  port: number;
  servesDocs: boolean;
}

export const isWorkerListening = (message: unknown): message is WorkerListening =>
  typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'listening';

export function runPrimary(workers: number, options: { log: Logger; onListening: (first: WorkerListening) => void }): void {
  const { log } = options;
  const alive = new Map<number, Worker>();
  const listening = new Set<number>();
  let announced = false;
  let stopping = false;
  let failed = false;

  const fork = () => {
    const worker = cluster.fork();
    alive.set(worker.id, worker);
    worker.on('message', (message: unknown) => {
      if (!isWorkerListening(message)) return;
      listening.add(worker.id);
      if (!announced && listening.size === workers) {
        announced = true;
        options.onListening(message);
      }
    });
    return worker;
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, workers: alive.size }, 'stopping workers');
    for (const worker of alive.values()) worker.process.kill('SIGTERM');
  };

  cluster.on('exit', (worker: Worker, code: number | null, signal: string | null) => {
    alive.delete(worker.id);
    const served = listening.delete(worker.id);
    if (!stopping && served) {
      // A worker that was serving died: its connections are gone, but the port stays open through the others.
      log.error({ pid: worker.process.pid, code, signal }, 'worker exited; starting another');
      fork();
      return;
    }
    if (!stopping) {
      // A worker that never listened will not do better the next time (port taken, database unreachable).
      log.error({ pid: worker.process.pid, code, signal }, 'worker failed to start; stopping');
      failed = true;
      stop('SIGTERM');
    }
    if (code !== 0) failed = true;
    if (alive.size === 0) {
      log.info('stopped');
      process.exit(failed ? 1 : 0);
    }
  });

  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  for (let index = 0; index < workers; index++) fork();
}
