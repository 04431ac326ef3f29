import { IDEMPOTENCY_KEY_HEADER, takesIdempotencyKey } from './idempotency-key.js';

export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /** Upper bound of the first backoff; it doubles with every retry. */
  initialDelayMs: number;
  /** No backoff is drawn from a range wider than this. */
  maxDelayMs: number;
  /**
   * A `Retry-After` longer than this is not waited out: the 429 or 5xx goes back to the caller,
   * who can decide better than a client blocked for minutes.
   */
  maxRetryAfterSeconds: number;
}

/**
 * Whether repeating a request whose outcome is unknown (a 5xx, or a network error) is harmless.
 * GET/HEAD read, DELETE ends in the same state however often it runs, and a POST with an
 * Idempotency-Key is replayed by the server rather than executed twice, as is `PATCH /submissions/{id}`
 * with one. Any other PATCH is never repeated: the API takes no Idempotency-Key on it, and a late repeat
 * could overwrite a change made between the attempts.
 */
export function isSafeToRepeat(request: Request): boolean {
  switch (request.method) {
    case 'GET':
    case 'HEAD':
    case 'DELETE':
      return true;
    case 'POST':
    case 'PATCH':
      return takesIdempotencyKey(request) && request.headers.has(IDEMPOTENCY_KEY_HEADER);
    default:
      return false;
  }
}

/** "Full jitter": a uniform draw from [0, min(cap, base * 2^retry)), so clients that failed together spread out. */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** The API sends `Retry-After` as whole seconds; anything else is ignored and backoff applies. */
export function parseRetryAfterSeconds(response: Response): number | undefined {
  const value = response.headers.get('Retry-After')?.trim();
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * How long to wait before retrying after `response`, or undefined to hand the response back.
 * A 429 is retried for every method: the server rejected the request before doing anything.
 * A 5xx may have been applied, so it is retried only when the request is safe to repeat.
 */
export function retryDelayAfterResponse(
  response: Response,
  request: Request,
  retry: number,
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  const rateLimited = response.status === 429;
  const serverError = response.status >= 500 && response.status <= 599;
  if (!rateLimited && !(serverError && isSafeToRepeat(request))) return undefined;

  const retryAfter = parseRetryAfterSeconds(response);
  if (retryAfter === undefined) return backoffDelayMs(retry, policy, random);
  return retryAfter <= policy.maxRetryAfterSeconds ? retryAfter * 1000 : undefined;
}
