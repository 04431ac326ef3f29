import pg from 'pg';
import type { JobLock } from '../job-lock.js';
import { advisoryLocks } from './advisory-locks.js';

const periodicJobsLock = advisoryLocks.periodicJobs;

/**
 * Leadership through a session-level advisory lock on a connection of its own: the process whose session holds
 * `pg_try_advisory_lock` runs the periodic jobs, the others skip them. Nothing has to be renewed or released by
 * hand: when the holder exits or its connection drops, PostgreSQL ends the session and frees the lock, and the
 * next process to ask takes it over. Before each run the holder checks that its session is still alive, so a
 * process that lost its connection stops running jobs before another one starts.
 */
export function postgresJobLock(url: string, options: { onError?: (error: Error) => void } = {}): JobLock {
  let session: pg.Client | undefined;
  let holder = false;
  let closed = false;

  const drop = (error: Error) => {
    options.onError?.(error);
    const lost = session;
    session = undefined;
    holder = false;
    void lost?.end().catch(() => {});
  };

  const holds = async (): Promise<boolean> => {
    if (!session) {
      const client = new pg.Client({ connectionString: url });
      // A dropped connection is noticed here and on the next query; the lock went with the session.
      client.on('error', (error) => {
        if (session === client) drop(error);
      });
      await client.connect();
      session = client;
    }
    if (holder) {
      await session.query('SELECT 1');
      return true;
    }
    const { rows } = await session.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [periodicJobsLock]);
    holder = rows[0]!.locked;
    return holder;
  };

  const runIfHolder = async (job: () => Promise<unknown>): Promise<boolean> => {
    if (closed) return false;
    try {
      if (!(await holds())) return false;
    } catch (error) {
      drop(error as Error);
      return false;
    }
    await job();
    return true;
  };
  // One run at a time in this process, so two timers firing together never open two sessions.
  let queue: Promise<unknown> = Promise.resolve();

  return {
    runIfHolder: (job) => {
      const run = queue.then(() => runIfHolder(job));
      queue = run.catch(() => {});
      return run;
    },
    close: async () => {
      closed = true;
      await queue;
      const client = session;
      session = undefined;
      holder = false;
      await client?.end().catch(() => {});
    },
  };
}
