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

/**
 * A credential, or a function that returns the current one: an OAuth access token is replaced when it is refreshed,
 * so a client built once sends whichever token is current, asking for it before each request.
 */
export type Credential = string | (() => string | Promise<string>);

export function createBearerAuthMiddleware(credential: Credential): Middleware {
  if (typeof credential === 'string') {
    assertUsableApiKey(credential);
    const authorization = `Bearer ${credential}`;
    return {
      onRequest({ request }) {
        request.headers.set('Authorization', authorization);
      },
    };
  }
  if (typeof credential !== 'function') assertUsableApiKey(credential);
  return {
    async onRequest({ request }) {
      const current = await credential();
      assertUsableApiKey(current);
      request.headers.set('Authorization', `Bearer ${current}`);
    },
  };
}
