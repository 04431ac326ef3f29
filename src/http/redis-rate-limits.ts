/**
 * The rate-limit policy on Redis, shared by every process of a deployment: one key's 100 requests per second
 * are 100 in total however many processes or machines answer them.
 *
 * While Redis cannot be reached (at start, or after it went away), each limiter falls back to its in-memory
 * insurance limiter: requests keep being served and limited, but each process then counts on its own, so a
 * deployment of N processes lets up to N times the budget through until Redis answers again. Requests are never
 * refused or held because Redis is down, and the shared counts take over again as soon as it is back.
 */
import { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { RateLimitSettings } from './documented-limits.js';
import { type RateLimitPolicy, rateLimitWindows, sizedLimiters } from './rate-limits.js';

export interface RedisRateLimitOptions {
  /** `redis://…` or `rediss://…`. */
  url: string;
  /** Put before every key, so deployments (and test runs) sharing one Redis never count each other's requests. */
  keyPrefix: string;
  /** Told when Redis becomes unreachable (limits then hold per process) and when it answers again. */
  onAvailabilityChange?: (available: boolean, error?: Error) => void;
}

export interface RedisRateLimits {
  policy: RateLimitPolicy;
  /** Resolves true once Redis answers, or false when it has not within `timeoutMs` (the insurance limiters serve meanwhile). */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** A command Redis has not answered by then is served by the insurance limiter instead of holding the request. */
const commandTimeoutMs = 1000;

export function redisRateLimits(settings: RateLimitSettings, options: RedisRateLimitOptions): RedisRateLimits {
  const client = new Redis(options.url, {
    // Without a connection a command fails at once (and the insurance limiter answers) instead of queueing.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
  });
  let available: boolean | undefined;
  let closing = false;
  const report = (now: boolean, error?: Error) => {
    if (available === now || closing) return;
    // The first failure to connect is worth telling; every retry after it is not.
    available = now;
    options.onAvailabilityChange?.(now, error);
  };
  client.on('ready', () => report(true));
  // ioredis emits an error per failed reconnection; without a listener each would be printed.
  client.on('error', (error: Error) => report(false, error));
  client.on('close', () => report(false));

  const limiter = (keyPrefix: string, points: number, duration: number): RateLimiterAbstract =>
    new RateLimiterRedis({
      storeClient: client,
      keyPrefix: `${options.keyPrefix}:${keyPrefix}`,
      points,
      duration,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
    });

  return {
    policy: {
      perKey: limiter('key', settings.perKeyPerSecond, 1),
      perWorkspace: limiter('ws', settings.perWorkspacePerMinute, 60),
      failedAuthPerAddress: limiter('auth', settings.failedAuthPerAddressPerMinute, 60),
      // Same keys as the standard limiters: a workspace whose limits change keeps the count of its current window.
      sized: sizedLimiters((window, points) => limiter(rateLimitWindows[window].keyPrefix, points, rateLimitWindows[window].duration)),
    },
    ready: (timeoutMs) =>
      client.status === 'ready'
        ? Promise.resolve(true)
        : new Promise((resolve) => {
            const timer = setTimeout(() => {
              client.off('ready', onReady);
              resolve(false);
            }, timeoutMs);
            const onReady = () => {
              clearTimeout(timer);
              resolve(true);
            };
            client.once('ready', onReady);
          }),
    close: async () => {
      closing = true;
      client.disconnect();
    },
  };
}
