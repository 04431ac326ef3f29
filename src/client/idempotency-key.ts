import type { Middleware } from 'openapi-fetch';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * Gives every POST an `Idempotency-Key` unless the caller chose one. The key is set once, before
 * the request reaches the retrying fetch, so every retry of that request replays the same key and
 * the server answers a repeat with the first response instead of creating a second resource.
 */
export function createIdempotencyKeyMiddleware(generateKey: () => string = () => globalThis.crypto.randomUUID()): Middleware {
  return {
    onRequest({ request }) {
      if (request.method === 'POST' && !request.headers.has(IDEMPOTENCY_KEY_HEADER)) {
        request.headers.set(IDEMPOTENCY_KEY_HEADER, generateKey());
      }
    },
  };
}
