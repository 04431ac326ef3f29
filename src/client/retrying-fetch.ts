import { FormFunnelError } from './form-funnel-error.js';
import { isCertificateError, networkErrorCode } from './network-error.js';
import { backoffDelayMs, isSafeToRepeat, type RetryPolicy, retryDelayAfterResponse } from './retry-policy.js';

export type FetchLike = (request: Request) => Promise<Response>;
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface RetryingFetchOptions extends RetryPolicy {
  sleep?: Sleep;
  random?: () => number;
}

/**
 * Retries live in the transport rather than in an openapi-fetch middleware: a middleware sees a
 * Request whose body fetch has already consumed, whereas here each attempt sends a fresh clone of
 * the original, with the same headers (Authorization, Idempotency-Key) and the same body. A network failure
 * that is not retried leaves as a FormFunnelError of kind `network`, so callers handle one error class.
 */
export function createRetryingFetch(fetch: FetchLike, options: RetryingFetchOptions): FetchLike {
  const { sleep = abortableSleep, random = Math.random, ...policy } = options;
  return async (request) => {
    for (let retry = 0; ; retry++) {
      const mayRetry = retry < policy.maxRetries;
      let response: Response;
      try {
        response = await fetch(request.clone());
      } catch (error) {
        // A caller's abort is a decision, not a failure to paper over: it leaves as the abort reason.
        if (request.signal.aborted) throw error;
        // A rejected certificate comes back the same on every attempt.
        const retryable = mayRetry && isSafeToRepeat(request) && !isCertificateError(networkErrorCode(error));
        if (!retryable) throw FormFunnelError.fromNetworkError(request, error);
        await sleep(backoffDelayMs(retry, policy, random), request.signal);
        continue;
      }
      const delay = mayRetry ? retryDelayAfterResponse(response, request, retry, policy, random) : undefined;
      if (delay === undefined) return response;
      // Release the discarded response's connection instead of waiting for garbage collection.
      void response.body?.cancel().catch(() => undefined);
      await sleep(delay, request.signal);
    }
  };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
