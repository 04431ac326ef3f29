/**
 * Every limit a request meets, in one file. The pipeline asks twice:
 * - `limitBeforeAuthentication`, for a public request (the public operations' paths and the hosted pages) before
 *   anything else is done for it: its address's budget (`PUBLIC_RATE_LIMIT_PER_ADDRESS_PER_MINUTE`). Other requests
 *   meet no limit before authentication.
 * - `limitAfterAuthentication`, with what authentication found:
 *   - a secret key or OAuth token admitted: its key's window (per grant for OAuth) and its workspace's;
 *   - a publishable key admitted: its key's window and its workspace's publishable budget, a window apart from the
 *     secret keys' so that a form's visitors can never starve the workspace's integrations of their budget;
 *   - a credential refused: one failed authentication counted against the address, answered 429 past its budget;
 *   - no credential (the published documents, the token endpoint before its decision, problems answered before or
 *     apart from authentication): the address's failed-authentication budget reported, nothing counted.
 * Every per-address limit counts a client under `addressLimitKey` (an IPv6 client by its network). The headers report
 * the window nearest to exhaustion; a refusal adds `Retry-After`.
 *
 * The limiters are rate-limiter-flexible's `RateLimiterAbstract`, so an operator running several processes can swap
 * the memory store for a shared one (Redis, redis-rate-limits.ts) without touching the pipeline.
 */
import type { Response } from 'express';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { type AppError, rateLimited } from '../domain/errors.js';
import type { WorkspaceRateLimits } from '../store/types.js';
import { addressLimitKey } from './client-address.js';
import { defaultRateLimits, type RateLimitSettings } from './documented-limits.js';

export interface RateLimitPolicy {
  /** Requests per key, per second. */
  perKey: RateLimiterAbstract;
  /** Requests of a workspace's secret keys and OAuth tokens, per minute. */
  perWorkspace: RateLimiterAbstract;
  /** Requests of a workspace's publishable keys, per minute: its visitors' budget, apart from `perWorkspace`. */
  publicPerWorkspace: RateLimiterAbstract;
  /** Failed authentications per client address, so keys cannot be guessed at speed. */
  failedAuthPerAddress: RateLimiterAbstract;
  /** Public requests (`/public/…`, hosted pages) per client address, counted before anything else. */
  publicPerAddress: RateLimiterAbstract;
  /** The name the per-address limiters count a client address under (`addressLimitKey`, with the configured prefix). */
  addressKey(address: string): string;
  /**
   * The per-key or a per-workspace limiter of another size, for a workspace with limits of its own (Enterprise). A
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

/** The two limiters an authenticated request is held to: its key's, and its workspace's secret or publishable budget. */
export type RequestLimiters = Pick<RateLimitPolicy, 'perKey' | 'perWorkspace'>;

/** What counting a request found: both windows (the workspace's is null when it has no count yet) and which refused. */
export interface RequestWindows {
  key: RateLimiterRes;
  workspace: RateLimiterRes | null;
  refusedBy: 'key' | 'workspace' | null;
}

export type RateLimitWindow = 'perKey' | 'perWorkspace' | 'publicPerWorkspace';

/** Each window's key prefix and length in seconds, whatever its size. */
export const rateLimitWindows: Record<RateLimitWindow, { keyPrefix: string; duration: number }> = {
  perKey: { keyPrefix: 'key', duration: 1 },
  perWorkspace: { keyPrefix: 'ws', duration: 60 },
  publicPerWorkspace: { keyPrefix: 'pubws', duration: 60 },
};

/** The per-address limiters' key prefixes and windows (a minute each). */
export const addressWindows = {
  failedAuthPerAddress: { keyPrefix: 'auth', duration: 60 },
  publicPerAddress: { keyPrefix: 'public', duration: 60 },
} as const;

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

/** The settings with the defaults filled in where absent. */
export const settingsWithDefaults = (settings: RateLimitSettings): Required<RateLimitSettings> => ({
  ...defaultRateLimits,
  ...Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)),
});

/** The name of a client address for the per-address limiters, as the settings count it. */
export const addressKeyOf =
  (settings: RateLimitSettings) =>
  (address: string): string =>
    addressLimitKey(address, settings.ipv6PrefixLength ?? defaultRateLimits.ipv6PrefixLength);

export function memoryRateLimits(given: RateLimitSettings): RateLimitPolicy {
  const settings = settingsWithDefaults(given);
  const memory = (window: RateLimitWindow, points: number) => new RateLimiterMemory({ ...rateLimitWindows[window], points });
  return {
    perKey: memory('perKey', settings.perKeyPerSecond),
    perWorkspace: memory('perWorkspace', settings.perWorkspacePerMinute),
    publicPerWorkspace: memory('publicPerWorkspace', settings.publicPerWorkspacePerMinute),
    failedAuthPerAddress: new RateLimiterMemory({ ...addressWindows.failedAuthPerAddress, points: settings.failedAuthPerAddressPerMinute }),
    publicPerAddress: new RateLimiterMemory({ ...addressWindows.publicPerAddress, points: settings.publicPerAddressPerMinute }),
    addressKey: addressKeyOf(settings),
    sized: sizedLimiters(memory),
  };
}

/** Which of a workspace's two budgets a credential spends: the secret keys' (and OAuth tokens') or the visitors'. */
export type WorkspaceBudget = 'secret' | 'publishable';

const workspaceWindowOf: Record<WorkspaceBudget, 'perWorkspace' | 'publicPerWorkspace'> = {
  secret: 'perWorkspace',
  publishable: 'publicPerWorkspace',
};

/**
 * The limiters a workspace's requests are held to: its own sizes when an operator set them, else the standard ones.
 * An operator's per-workspace size raises the visitors' budget too (a workspace allowed more gets as many more
 * visitors), but never lowers it below the standard publishable budget: a workspace whose keys were held back keeps
 * its site's visitors, and a large standard visitors' budget is not cut to a smaller Enterprise size.
 */
function limitersFor(policy: RateLimitPolicy, custom: WorkspaceRateLimits | null, budget: WorkspaceBudget): RequestLimiters {
  const window = workspaceWindowOf[budget];
  const standard = { perKey: policy.perKey, perWorkspace: policy[window] };
  if (!custom || !policy.sized) return standard;
  const sized = (limiter: RateLimiterAbstract, name: RateLimitWindow, points: number) =>
    points === limiter.points ? limiter : policy.sized!(name, points);
  return {
    perKey: sized(standard.perKey, 'perKey', custom.perKeyPerSecond),
    perWorkspace: sized(
      standard.perWorkspace,
      window,
      budget === 'publishable' ? Math.max(custom.perWorkspacePerMinute, standard.perWorkspace.points) : custom.perWorkspacePerMinute,
    ),
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

/** Counts one point against the address; throws 429 once it is over its budget (`refusal`: the message). */
async function consumeAddress(
  policy: RateLimitPolicy,
  limiter: RateLimiterAbstract,
  res: Response,
  address: string,
  refusal: string,
): Promise<void> {
  try {
    setHeaders(res, [windowOf(limiter, await limiter.consume(policy.addressKey(address)), Date.now())]);
  } catch (error) {
    if (!isLimitRejection(error)) throw error;
    setHeaders(res, [windowOf(limiter, error, Date.now())]);
    throw tooManyRequests(res, error.msBeforeNext, refusal);
  }
}

/**
 * Before authentication, for a public request only: counted against its address before anything else is done for
 * it, so a page's visitors each have their own budget, and one address sending more is refused 429 whatever key it
 * sends.
 */
export async function limitBeforeAuthentication(policy: RateLimitPolicy, res: Response, address: string): Promise<void> {
  const limiter = policy.publicPerAddress;
  await consumeAddress(policy, limiter, res, address, `More than ${limiter.points} public requests per minute from this address`);
}

/** A credential authentication admitted, as the limits see it. */
export interface AdmittedCredential {
  /** The lasting credential: the API key or publishable key, or the OAuth grant behind short-lived tokens. */
  credentialId: string;
  budget: WorkspaceBudget;
  workspace: { id: string; rateLimits: WorkspaceRateLimits | null };
}

/** What authentication found: a credential admitted, one refused, or none asked for. */
export type Authentication = { outcome: 'admitted'; credential: AdmittedCredential } | { outcome: 'refused' } | { outcome: 'none' };

/**
 * After authentication: counts what it found and reports the window nearest to exhaustion; throws 429 (to answer
 * instead of the request, or of the refused credential's failure) once a window is spent.
 *
 * Only failures are counted against the address and only failures are refused by it: a valid key from an address
 * that also sent bad ones (an office behind one NAT) is never turned away. Guessing stays throttled, since every wrong
 * guess past the budget is a 429 and keys are too long to find by chance. Without a credential nothing is counted:
 * the address's budget is only looked up, and only for those answers (an admitted credential reports its own windows,
 * and with the limits on Redis each lookup is a round trip on the request's path).
 */
export async function limitAfterAuthentication(
  policy: RateLimitPolicy,
  res: Response,
  address: string,
  found: Authentication,
): Promise<void> {
  const limiter = policy.failedAuthPerAddress;
  switch (found.outcome) {
    case 'admitted': {
      const { credentialId, workspace, budget } = found.credential;
      return consumeRequest(policy, res, credentialId, workspace, budget);
    }
    case 'refused':
      return consumeAddress(policy, limiter, res, address, 'Too many failed authentications from this address');
    case 'none':
      setHeaders(res, [windowOf(limiter, await limiter.get(policy.addressKey(address)), Date.now())]);
  }
}

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

const workspaceRefusal: Record<WorkspaceBudget, (points: number) => string> = {
  secret: (points) => `More than ${points} requests per minute in this workspace`,
  publishable: (points) => `More than ${points} requests per minute with this workspace's publishable keys`,
};

/**
 * An admitted request counts against its credential and its workspace's budget (the secret keys' or the
 * publishable keys'). The workspace is charged only once the key's own limit has let the request through, and a
 * request the workspace refuses gives the key its point back, so one key's refused burst never spends the budget of
 * the workspace's other keys.
 */
export async function consumeRequest(
  standard: RateLimitPolicy,
  res: Response,
  credentialId: string,
  workspace: { id: string; rateLimits: WorkspaceRateLimits | null },
  budget: WorkspaceBudget = 'secret',
): Promise<void> {
  const policy = limitersFor(standard, workspace.rateLimits, budget);
  const now = Date.now();
  const counted = standard.consumeBoth
    ? await standard.consumeBoth(policy, credentialId, workspace.id)
    : await consumeInTurn(policy, credentialId, workspace.id);
  setHeaders(res, [windowOf(policy.perKey, counted.key, now), windowOf(policy.perWorkspace, counted.workspace, now)]);
  if (counted.refusedBy === 'key') {
    throw tooManyRequests(res, counted.key.msBeforeNext, `More than ${policy.perKey.points} requests per second with this key`);
  }
  if (counted.refusedBy === 'workspace') {
    throw tooManyRequests(res, counted.workspace!.msBeforeNext, workspaceRefusal[budget](policy.perWorkspace.points));
  }
}
