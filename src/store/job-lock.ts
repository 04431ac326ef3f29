/**
 * Periodic jobs (the key-expiry sweep, the idempotency purge) must run in one process at a time across a
 * deployment, however many processes share the database. Each process asks its job lock before every run; the
 * one holding it runs the job and the others skip that run.
 */
export interface JobLock {
  /** Runs `job` when this process holds the deployment's job lock; resolves whether it ran. */
  runIfHolder(job: () => Promise<unknown>): Promise<boolean>;
  /** Gives the lock up (another process takes it on its next run). */
  close(): Promise<void>;
}

/** An embedded database serves one process, which therefore always holds the lock. */
export function singleProcessJobLock(): JobLock {
  return {
    runIfHolder: async (job) => {
      await job();
      return true;
    },
    close: async () => {},
  };
}
