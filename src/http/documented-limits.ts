/**
 * Numbers the OpenAPI document states in prose or in schemas the server cannot apply by itself (a body size,
 * a replay window, rate limits). They live here, in one leaf module, so test/domain/spec-sync.test.ts can pin
 * each to the sentence or schema of the document that states it.
 */

/** `PayloadTooLarge`: a request body above 1 MiB gets 413. */
export const maxBodyBytes = 1024 * 1024;

/**
 * The document's Requests section: objects and arrays in a body nest at most 64 levels deep. The deepest valid
 * form definition (conditions nested 5 levels inside a logic or scoring rule) needs about 16.
 */
export const maxBodyDepth = 64;

/** `Idempotency-Key`: a repeat within 24 hours replays the first response. */
export const idempotencyTtlSeconds = 24 * 3600;

/** The `limit` parameter's default; its range (1 to 100) is checked by the request validator. */
export const defaultPageSize = 20;

export interface RateLimitSettings {
  perKeyPerSecond: number;
  perWorkspacePerMinute: number;
  failedAuthPerAddressPerMinute: number;
  /** Public requests (`/public/…`) per client address per minute; the default's when absent. */
  publicPerAddressPerMinute?: number;
  /**
   * Requests per minute of one workspace's publishable keys together (its forms' visitors), a budget apart from the
   * secret keys' so that visitors can never starve the workspace's own integrations; the default's when absent.
   */
  publicPerWorkspacePerMinute?: number;
  /** The per-address limits count an IPv6 client by its network of this many bits; the default's when absent. */
  ipv6PrefixLength?: number;
}

/**
 * The limits `X-RateLimit-Limit` describes (per key and per workspace), the failed-authentication budget per
 * client address, the public operations' budget per address and per workspace, and the IPv6 network counted as one
 * address (a /64 is what one subscriber is given, so one client can pick any of its addresses); the configuration's
 * defaults.
 */
export const defaultRateLimits: Readonly<Required<RateLimitSettings>> = {
  perKeyPerSecond: 100,
  perWorkspacePerMinute: 10_000,
  failedAuthPerAddressPerMinute: 30,
  publicPerAddressPerMinute: 60,
  publicPerWorkspacePerMinute: 10_000,
  ipv6PrefixLength: 64,
};
