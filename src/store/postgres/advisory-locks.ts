/**
 * Every PostgreSQL advisory lock key the service takes. An advisory lock is identified by its number alone, so
 * two uses that picked the same one would wait on each other (a session holding one would stall the other
 * forever): they are all declared here, and a test checks that no two are equal.
 */
export const advisoryLocks = {
  /** Every process starting at once waits for the one that applies the migrations. */
  migrations: 7_260_451_832,
  /** Delivery claims take turns, so each sees the leases the previous one committed. */
  deliveryClaims: 7_260_451_833,
  /** Held for as long as its session lives by the one process that runs the periodic jobs. */
  periodicJobs: 7_260_451_834,
  /** One aggregate fold at a time across the processes, so two folds never lock the same day rows in a cycle. */
  aggregateFold: 7_260_451_835,
} as const;
