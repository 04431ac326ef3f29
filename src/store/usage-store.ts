/** Metered usage (live only): API requests counted by the servers, submissions and delivery attempts by the store. */

/** A server's API request count for one workspace and month since its last flush. */
export interface ApiRequestCount {
  workspaceId: string;
  /** `YYYY-MM`, UTC. */
  month: string;
  count: number;
}

/** A calendar month: `start` included, `end` excluded (ISO 8601 timestamps). */
export interface UsagePeriod {
  month: string;
  start: string;
  end: string;
}

export interface UsageFigures {
  submissions: number;
  apiRequests: number;
  webhookDeliveries: number;
}

export interface UsageStore {
  /** Adds each count to its workspace's month, in one transaction: additive, so servers never overwrite each other. */
  addApiRequests(counts: readonly ApiRequestCount[]): Promise<void>;
  /**
   * The workspace's live figures in the month: requests flushed so far, submissions created, and delivery attempts
   * made (succeeded or failed) to its live integrations. All three are counters (submissions counted by the insert,
   * attempts by `recordAttempt`, in their transactions), so deleting rows never lowers them.
   */
  figures(workspaceId: string, period: UsagePeriod): Promise<UsageFigures>;
}
