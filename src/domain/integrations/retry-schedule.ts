/**
 * When a failed delivery is tried again: exponential backoff with full jitter (a uniformly random delay up to
 * base × 2^(attempt-1), capped), so endpoints recovering from an outage are not hit by every retry at once.
 */

/** Attempts in all, the first included (IntegrationLog.attempt's maximum). */
export const MAX_ATTEMPTS = 8;

/** An answer must arrive within this time (IntegrationLog.duration_ms's maximum). */
export const DELIVERY_TIMEOUT_MS = 10_000;

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /** No retry comes sooner than this. */
  minMs: number;
}

/** Ceilings of 5 min, 10 min, ... 5 h 20 min: the 7 retries spread over up to about 10 hours. */
export const defaultBackoff: BackoffPolicy = { baseMs: 5 * 60_000, capMs: 6 * 3600_000, minMs: 1_000 };

/**
 * The default schedule with another first ceiling (WEBHOOK_RETRY_BASE_MS), for a developer who wants to see
 * the retries of a local receiver within seconds rather than minutes. The floor never exceeds the base.
 */
export function backoffWithBase(baseMs: number): BackoffPolicy {
  return { ...defaultBackoff, baseMs, minMs: Math.min(defaultBackoff.minMs, baseMs) };
}

/** Delay before the attempt after `failedAttempt`, or null when that was the last one. */
export function retryDelayMs(
  failedAttempt: number,
  policy: BackoffPolicy = defaultBackoff,
  random: () => number = Math.random,
): number | null {
  if (failedAttempt >= MAX_ATTEMPTS) return null;
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** (failedAttempt - 1));
  return Math.max(policy.minMs, Math.floor(random() * ceiling));
}
