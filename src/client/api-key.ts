import type { Middleware } from 'openapi-fetch';

/**
 * The server accepts exactly `Bearer <key>` and answers anything else with 401 `invalid_api_key`.
 * A key read from an env file often ends in a newline; failing here names the cause instead of
 * leaving the caller to decode a 401. The key itself never appears in the message.
 */
export function assertUsableApiKey(apiKey: unknown): asserts apiKey is string {
  if (typeof apiKey !== 'string' || apiKey.length === 0) {
    throw new TypeError('Form-Funnel client: `apiKey` is required (an svc_live_… or svc_test_… key).');
  }
  if (/\s/.test(apiKey)) {
    throw new TypeError('Form-Funnel client: `apiKey` contains whitespace (often a trailing newline from an env file); trim it.');
  }
  if (!/^[\x21-\x7E]+$/.test(apiKey)) {
    throw new TypeError('Form-Funnel client: `apiKey` contains characters that cannot appear in an HTTP header.');
  }
}

export function createBearerAuthMiddleware(apiKey: string): Middleware {
  assertUsableApiKey(apiKey);
  const authorization = `Bearer ${apiKey}`;
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', authorization);
    },
  };
}
