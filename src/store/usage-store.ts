/** Metered usage: API requests counted by the servers, and what the stored rows already tell (live only). */

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
   * The workspace's live figures in the period: requests flushed so far, submissions created and still stored, and
   * delivery attempts made (succeeded or failed) to its live integrations.
   */
  figures(workspaceId: string, period: UsagePeriod): Promise<UsageFigures>;
}
