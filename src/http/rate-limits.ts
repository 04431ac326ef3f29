/**
 * The rate limits the document describes (per key, per workspace, failed authentications per address), on
 * rate-limiter-flexible. The policy is three limiters behind
 * `RateLimiterAbstract`, so an operator running several processes can swap the memory store for a shared
 * one (Redis, Postgres, ...) without touching the pipeline.
 */
import type { Response } from 'express';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { type AppError, rateLimited } from '../domain/errors.js';
import type { RateLimitSettings } from './documented-limits.js';

export interface RateLimitPolicy {
  /** Requests per key, per second. */
  perKey: RateLimiterAbstract;
  /** Requests per workspace, per minute. */
  perWorkspace: RateLimiterAbstract;
  /** Failed authentications per client address, so keys cannot be guessed at speed. */
  failedAuthPerAddress: RateLimiterAbstract;
}

export function memoryRateLimits(settings: RateLimitSettings): RateLimitPolicy {
  return {
    perKey: new RateLimiterMemory({ keyPrefix: 'key', points: settings.perKeyPerSecond, duration: 1 }),
    perWorkspace: new RateLimiterMemory({ keyPrefix: 'ws', points: settings.perWorkspacePerMinute, duration: 60 }),
    failedAuthPerAddress: new RateLimiterMemory({ keyPrefix: 'auth', points: settings.failedAuthPerAddressPerMinute, duration: 60 }),
  };
}

interface Window {
  limit: number;
  remaining: number;
  resetMs: number;
}

const windowOf = (limiter: RateLimiterAbstract, res: RateLimiterRes | null, now: number): Window => ({
  limit: limiter.points,
  remaining: Math.max(0, res ? res.remainingPoints : limiter.points),
  resetMs: now + (res ? res.msBeforeNext : limiter.duration * 1000),
});

/** Reports the window nearest to exhaustion (the smallest share left) in the X-RateLimit-* headers. */
function setHeaders(res: Response, windows: Window[]): void {
  if (res.headersSent) return;
  const nearest = windows.reduce((a, b) => (b.remaining / b.limit < a.remaining / a.limit ? b : a));
  res.setHeader('X-RateLimit-Limit', String(nearest.limit));
  res.setHeader('X-RateLimit-Remaining', String(nearest.remaining));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil(nearest.resetMs / 1000)));
}

function tooManyRequests(res: Response, msBeforeNext: number, message: string): AppError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  res.setHeader('Retry-After', String(seconds));
  return rateLimited(message, seconds);
}

const isLimitRejection = (error: unknown): error is RateLimiterRes => error instanceof RateLimiterRes;

/** Reports the address's failed-authentication window without counting anything. */
export async function peekFailedAuthBudget(policy: RateLimitPolicy, res: Response, address: string): Promise<void> {
  const limiter = policy.failedAuthPerAddress;
  setHeaders(res, [windowOf(limiter, await limiter.get(address), Date.now())]);
}

/** Before authentication: an address that failed too often is turned away without a database lookup. */
export async function checkFailedAuthBudget(policy: RateLimitPolicy, res: Response, address: string): Promise<void> {
  const limiter = policy.failedAuthPerAddress;
  const state = await limiter.get(address);
  const window = windowOf(limiter, state, Date.now());
  setHeaders(res, [window]);
  if (state && state.consumedPoints >= limiter.points) {
    throw tooManyRequests(res, state.msBeforeNext, 'Too many failed authentications from this address');
  }
}

export async function recordFailedAuth(policy: RateLimitPolicy, res: Response, address: string): Promise<void> {
  const limiter = policy.failedAuthPerAddress;
  try {
    setHeaders(res, [windowOf(limiter, await limiter.consume(address), Date.now())]);
  } catch (error) {
    if (!isLimitRejection(error)) throw error;
    setHeaders(res, [windowOf(limiter, error, Date.now())]);
  }
}

/** After authentication: one request counts against the key and its workspace. */
export async function consumeRequest(policy: RateLimitPolicy, res: Response, keyId: string, workspaceId: string): Promise<void> {
  const now = Date.now();
  const [key, workspace] = await Promise.allSettled([policy.perKey.consume(keyId), policy.perWorkspace.consume(workspaceId)]);
  const outcome = (limiter: RateLimiterAbstract, settled: PromiseSettledResult<RateLimiterRes>) => {
    if (settled.status === 'fulfilled') return { window: windowOf(limiter, settled.value, now), rejected: undefined };
    if (!isLimitRejection(settled.reason)) throw settled.reason;
    return { window: windowOf(limiter, settled.reason, now), rejected: settled.reason };
  };
  const perKey = outcome(policy.perKey, key);
  const perWorkspace = outcome(policy.perWorkspace, workspace);
  setHeaders(res, [perKey.window, perWorkspace.window]);
  if (perKey.rejected)
    throw tooManyRequests(res, perKey.rejected.msBeforeNext, `More than ${policy.perKey.points} requests per second with this key`);
  if (perWorkspace.rejected)
    throw tooManyRequests(
      res,
      perWorkspace.rejected.msBeforeNext,
      `More than ${policy.perWorkspace.points} requests per minute in this workspace`,
    );
}
