import type { Middleware } from 'openapi-fetch';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * The one PATCH the API replays by `Idempotency-Key` (the operations that declare the header): resuming a
 * submission, whose retry would otherwise meet a submission the first attempt already completed.
 */
const REPLAYABLE_PATCH = /\/submissions\/[^/]+$/;

/** Whether the API takes an `Idempotency-Key` on this request: every POST, and `PATCH /submissions/{id}`. */
export function takesIdempotencyKey(request: Request): boolean {
  return request.method === 'POST' || (request.method === 'PATCH' && REPLAYABLE_PATCH.test(new URL(request.url).pathname));
}

/**
 * Gives every POST (and `PATCH /submissions/{id}`) an `Idempotency-Key` unless the caller chose one. The key is set once, before
 * the request reaches the retrying fetch, so every retry of that request replays the same key and
 * the server answers a repeat with the first response instead of creating a second resource.
 */
export function createIdempotencyKeyMiddleware(generateKey: () => string = () => globalThis.crypto.randomUUID()): Middleware {
  return {
    onRequest({ request }) {
      if (takesIdempotencyKey(request) && !request.headers.has(IDEMPOTENCY_KEY_HEADER)) {
        request.headers.set(IDEMPOTENCY_KEY_HEADER, generateKey());
      }
    },
  };
}
