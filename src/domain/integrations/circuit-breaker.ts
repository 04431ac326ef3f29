/**
 * The circuit breaker of an integration: how the outcome of an attempt moves it. An endpoint that keeps failing
 * gets its attempts held back (paused, with a growing pause, then probed one attempt at a time) instead of
 * taking delivery capacity, and after a long run of failures it is disabled, as Stripe and GitHub disable
 * webhook endpoints that have been failing for days. Paused and disabled integrations keep their queued
 * attempts: nothing is dropped, and re-enabling resumes them.
 */
import type { CircuitState } from '../../store/integration-store.js';

export interface CircuitPolicy {
  /** Failed attempts in a row that trip the breaker. */
  pauseAfterFailures: number;
  /** The first pause; each further failure doubles it, up to `maxPauseMs`. */
  basePauseMs: number;
  maxPauseMs: number;
  /** An integration failing without a success this long, and at least `disableAfterFailures` times in a row, is disabled. */
  disableAfterMs: number;
  disableAfterFailures: number;
}

/**
 * 5 failures in a row pause an integration for 1 minute, doubling to at most 1 hour; 3 days of failures (at least
 * 20 in a row, so that two failures days apart do not count as a run) disable it. The `Integration.enabled`
 * description states the same numbers (checked by the integrations domain test).
 */
export const defaultCircuitPolicy: CircuitPolicy = {
  pauseAfterFailures: 5,
  basePauseMs: 60_000,
  maxPauseMs: 3600_000,
  disableAfterMs: 3 * 86_400_000,
  disableAfterFailures: 20,
};

/** A success closes the breaker; a failure counts, pauses once the run is long enough, and disables after a long run. */
export function nextCircuitState(
  current: CircuitState,
  outcome: 'succeeded' | 'failed',
  now: Date,
  policy: CircuitPolicy = defaultCircuitPolicy,
): CircuitState {
  if (outcome === 'succeeded') return { ...current, consecutiveFailures: 0, failingSince: null, pausedUntil: null };
  const at = now.toISOString();
  const failures = current.consecutiveFailures + 1;
  const failingSince = current.failingSince ?? at;
  const next: CircuitState = { ...current, consecutiveFailures: failures, failingSince };
  if (failures < policy.pauseAfterFailures) return next;
  const pauseMs = Math.min(policy.maxPauseMs, policy.basePauseMs * 2 ** (failures - policy.pauseAfterFailures));
  next.pausedUntil = new Date(now.getTime() + pauseMs).toISOString();
  const failingFor = now.getTime() - Date.parse(failingSince);
  if (current.enabled && failures >= policy.disableAfterFailures && failingFor >= policy.disableAfterMs) {
    return { ...next, enabled: false, disabledAt: at, disabledReason: 'delivery_failures', updatedAt: at };
  }
  return next;
}

/** Whether this move disabled the integration (and so an `integration.disabled` event is due). */
export const disabledNow = (before: CircuitState, after: CircuitState): boolean => before.enabled && !after.enabled;
