/**
 * The rate limits the document describes (per key, per workspace, failed authentications per address), on
 * rate-limiter-flexible. The policy is three limiters behind
 * `RateLimiterAbstract`, so an operator running several processes can swap the memory store for a shared
 * one (Redis, Postgres, ...) without touching the pipeline.
 */
import type { Response } from 'express';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { type AppError, rateLimited } from '../domain/errors.js';
import type { WorkspaceRateLimits } from '../store/types.js';
import { defaultRateLimits, type RateLimitSettings } from './documented-limits.js';

export interface RateLimitPolicy {
  /** Requests per key, per second. */
  perKey: RateLimiterAbstract;
  /** Requests per workspace, per minute. */
  perWorkspace: RateLimiterAbstract;
  /** Failed authentications per client address, so keys cannot be guessed at speed. */
  failedAuthPerAddress: RateLimiterAbstract;
  /** Public requests (`/public/…`) per client address, counted before anything else. */
  publicPerAddress: RateLimiterAbstract;
  /**
   * The per-key or per-workspace limiter of another size, for a workspace with limits of its own (Enterprise). A
   * limiter's size is fixed when it is built, so there is one per size, built once and kept: operators set few.
   * Without it, every workspace gets the standard limiters.
   */
  sized?(window: RateLimitWindow, points: number): RateLimiterAbstract;
  /**
   * Counts a request against its key's and its workspace's windows in one step, with the rules `consumeRequest`
   * states: a store shared over the network (Redis) does it in one round trip instead of two or three. Without it,
   * `consumeInTurn` asks each limiter in turn.
   */
  consumeBoth?(limiters: RequestLimiters, credentialId: string, workspaceId: string): Promise<RequestWindows>;
}

/** The two limiters an authenticated request is held to. */
export type RequestLimiters = Pick<RateLimitPolicy, 'perKey' | 'perWorkspace'>;

/** What counting a request found: both windows (the workspace's is null when it has no count yet) and which refused. */
export interface RequestWindows {
  key: RateLimiterRes;
  workspace: RateLimiterRes | null;
  refusedBy: 'key' | 'workspace' | null;
}

export type RateLimitWindow = 'perKey' | 'perWorkspace';

/** Each window's key prefix and length in seconds, whatever its size. */
export const rateLimitWindows: Record<RateLimitWindow, { keyPrefix: string; duration: number }> = {
  perKey: { keyPrefix: 'key', duration: 1 },
  perWorkspace: { keyPrefix: 'ws', duration: 60 },
};

/** Builds each size of limiter once (see `RateLimitPolicy.sized`). */
export function sizedLimiters(build: (window: RateLimitWindow, points: number) => RateLimiterAbstract): RateLimitPolicy['sized'] {
  const built = new Map<string, RateLimiterAbstract>();
  return (window, points) => {
    const key = `${window} ${points}`;
    const existing = built.get(key);
    if (existing) return existing;
    const limiter = build(window, points);
    built.set(key, limiter);
    return limiter;
  };
}

/** The per-address budget of the public operations, as configured or by default. */
export const publicPointsOf = (settings: RateLimitSettings): number =>
  settings.publicPerAddressPerMinute ?? defaultRateLimits.publicPerAddressPerMinute;

export function memoryRateLimits(settings: RateLimitSettings): RateLimitPolicy {
  const memory = (window: RateLimitWindow, points: number) => new RateLimiterMemory({ ...rateLimitWindows[window], points });
  return {
    perKey: memory('perKey', settings.perKeyPerSecond),
    perWorkspace: memory('perWorkspace', settings.perWorkspacePerMinute),
    failedAuthPerAddress: new RateLimiterMemory({ keyPrefix: 'auth', points: settings.failedAuthPerAddressPerMinute, duration: 60 }),
    publicPerAddress: new RateLimiterMemory({ keyPrefix: 'public', points: publicPointsOf(settings), duration: 60 }),
    sized: sizedLimiters(memory),
  };
}

/** The limiters a workspace's requests are held to: its own sizes when an operator set them, else the standard ones. */
function limitersFor(policy: RateLimitPolicy, custom: WorkspaceRateLimits | null): Pick<RateLimitPolicy, 'perKey' | 'perWorkspace'> {
  if (!custom || !policy.sized) return policy;
  return {
    perKey: custom.perKeyPerSecond === policy.perKey.points ? policy.perKey : policy.sized('perKey', custom.perKeyPerSecond),
    perWorkspace:
      custom.perWorkspacePerMinute === policy.perWorkspace.points
        ? policy.perWorkspace
        : policy.sized('perWorkspace', custom.perWorkspacePerMinute),
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

/** Counts one point against the address; the 429 to answer once it is over its budget (`refusal`: its message). */
async function consumeAddress(
  limiter: RateLimiterAbstract,
  res: Response,
  address: string,
  refusal: string,
): Promise<AppError | undefined> {
  try {
    setHeaders(res, [windowOf(limiter, await limiter.consume(address), Date.now())]);
    return undefined;
  } catch (error) {
    if (!isLimitRejection(error)) throw error;
    setHeaders(res, [windowOf(limiter, error, Date.now())]);
    return tooManyRequests(res, error.msBeforeNext, refusal);
  }
}

/**
 * Counts a public request against its address, before anything else is done for it: a page's visitors each have
 * their own budget, and one address sending more is refused 429 whatever key it sends.
 */
export async function consumePublicRequest(policy: RateLimitPolicy, res: Response, address: string): Promise<void> {
  const limiter = policy.publicPerAddress;
  const refused = await consumeAddress(limiter, res, address, `More than ${limiter.points} public requests per minute from this address`);
  if (refused) throw refused;
}

/** Reports the address's failed-authentication window without counting anything. */
export async function peekFailedAuthBudget(policy: RateLimitPolicy, res: Response, address: string): Promise<void> {
  const limiter = policy.failedAuthPerAddress;
  setHeaders(res, [windowOf(limiter, await limiter.get(address), Date.now())]);
}

/**
 * Counts one failed authentication from the address and returns the 429 to answer instead of the failure
 * once the address is over its budget. Only failures are counted and only failures are refused: a valid key
 * from an address that also sent bad ones (an office behind one NAT) is never turned away. Guessing stays
 * throttled, since every wrong guess past the budget is a 429 and keys are too long to find by chance.
 */
export const recordFailedAuth = (policy: RateLimitPolicy, res: Response, address: string): Promise<AppError | undefined> =>
  consumeAddress(policy.failedAuthPerAddress, res, address, 'Too many failed authentications from this address');

/**
 * The request's windows counted one limiter after the other: the key's first; the workspace's only once the key's
 * admitted the request; the key's point given back when the workspace's refuses.
 */
export async function consumeInTurn(limiters: RequestLimiters, credentialId: string, workspaceId: string): Promise<RequestWindows> {
  let key: RateLimiterRes;
  try {
    key = await limiters.perKey.consume(credentialId);
  } catch (error) {
    if (!isLimitRejection(error)) throw error;
    return { key: error, workspace: await limiters.perWorkspace.get(workspaceId), refusedBy: 'key' };
  }
  try {
    return { key, workspace: await limiters.perWorkspace.consume(workspaceId), refusedBy: null };
  } catch (error) {
    if (!isLimitRejection(error)) throw error;
    return { key: await limiters.perKey.reward(credentialId, 1), workspace: error, refusedBy: 'workspace' };
  }
}

/**
 * After authentication: an admitted request counts against its credential and its workspace. The workspace
 * is charged only once the key's own limit has let the request through, and a request the workspace refuses
 * gives the key its point back, so one key's refused burst never spends the budget of the workspace's other
 * keys. `credentialId` is the lasting credential (the API key, or the OAuth grant behind short-lived tokens).
 */
export async function consumeRequest(
  standard: RateLimitPolicy,
  res: Response,
  credentialId: string,
  workspace: { id: string; rateLimits: WorkspaceRateLimits | null },
): Promise<void> {
  const policy = limitersFor(standard, workspace.rateLimits);
  const now = Date.now();
  const counted = standard.consumeBoth
    ? await standard.consumeBoth(policy, credentialId, workspace.id)
    : await consumeInTurn(policy, credentialId, workspace.id);
  setHeaders(res, [windowOf(policy.perKey, counted.key, now), windowOf(policy.perWorkspace, counted.workspace, now)]);
  if (counted.refusedBy === 'key') {
    throw tooManyRequests(res, counted.key.msBeforeNext, `More than ${policy.perKey.points} requests per second with this key`);
  }
  if (counted.refusedBy === 'workspace') {
    throw tooManyRequests(
      res,
      counted.workspace!.msBeforeNext,
      `More than ${policy.perWorkspace.points} requests per minute in this workspace`,
    );
  }
}
