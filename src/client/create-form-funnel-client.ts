import createClient, { type Client, type HeadersOptions } from 'openapi-fetch';
import type { paths } from '../../generated/openapi.js';
import { assertUsableApiKey, type Credential, createBearerAuthMiddleware } from './api-key.js';
import { createIdempotencyKeyMiddleware } from './idempotency-key.js';
import { createRetryingFetch, type FetchLike, type Sleep } from './retrying-fetch.js';

/** The production server of the contract (`servers[0]` with its default instance). */
export const DEFAULT_BASE_URL = 'https://api.form-funnel.example/v1';

export type FormFunnelClient = Client<paths>;

export interface FormFunnelClientOptions {
  /**
   * An API key (`svc_live_…`, `svc_test_…`) or an OAuth access token, sent as `Bearer`; or a function returning the
   * current access token, called before every request, so that a token your code refreshes takes effect at once.
   */
  apiKey: Credential;
  /** A dedicated instance's `https://<host>/v1`, or the mock. */
  baseUrl?: string;
  /** Transport; defaults to the global fetch (looked up per call, so test stubs apply). */
  fetch?: FetchLike;
  /** Headers added to every request, such as a `User-Agent` naming your integration. */
  headers?: HeadersOptions;
  /** Retries after the first attempt. Default 3; 0 turns retrying off. */
  maxRetries?: number;
  /** Upper bound of the first backoff, doubled per retry. Default 500 ms. */
  initialRetryDelayMs?: number;
  /** Cap of the backoff range. Default 20 s. */
  maxRetryDelayMs?: number;
  /** A longer `Retry-After` is returned to the caller instead of waited out. Default 60 s (the longest rate-limit window). */
  maxRetryAfterSeconds?: number;
  /** For tests: replaces the timer between attempts. */
  sleep?: Sleep;
  /** For tests: replaces Math.random in the backoff jitter. */
  random?: () => number;
  /** For tests: replaces crypto.randomUUID for automatic Idempotency-Keys. */
  generateIdempotencyKey?: () => string;
}

/**
 * An openapi-fetch client typed from the contract: `client.GET('/forms/{id}', …)` returns
 * `{ data, error, response }`; wrap it in `unwrap()` to get the data or a thrown FormFunnelError.
 * A per-call `fetch` override bypasses the retries configured here.
 */
export function createFormFunnelClient(options: FormFunnelClientOptions): FormFunnelClient {
  const { apiKey, ...transport } = options;
  if (typeof apiKey !== 'function') assertUsableApiKey(apiKey);
  return createBearerClient<paths>(apiKey, transport);
}

/** What a client is built from besides its credential: the options of `createFormFunnelClient` but `apiKey`. */
export type TransportOptions = Omit<FormFunnelClientOptions, 'apiKey'>;

/**
 * A client over `Paths` that sends `credential` as `Bearer`, retries as configured and gives every replayable request
 * an Idempotency-Key: the secret-key client and the public client (create-public-client.ts) differ only in these.
 */
export function createBearerClient<Paths extends {}>(credential: Credential, options: TransportOptions): Client<Paths> {
  const {
    baseUrl = DEFAULT_BASE_URL,
    fetch = (request: Request) => globalThis.fetch(request),
    headers,
    maxRetries = 3,
    initialRetryDelayMs = 500,
    maxRetryDelayMs = 20_000,
    maxRetryAfterSeconds = 60,
    sleep,
    random,
    generateIdempotencyKey,
  } = options;
  assertNonNegativeInteger('maxRetries', maxRetries);

  const client = createClient<Paths>({
    baseUrl,
    ...(headers && { headers }),
    fetch: createRetryingFetch(fetch, {
      maxRetries,
      initialDelayMs: initialRetryDelayMs,
      maxDelayMs: maxRetryDelayMs,
      maxRetryAfterSeconds,
      ...(sleep && { sleep }),
      ...(random && { random }),
    }),
  });
  client.use(createBearerAuthMiddleware(credential), createIdempotencyKeyMiddleware(generateIdempotencyKey));
  return client;
}

function assertNonNegativeInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`Form-Funnel client: \`${name}\` must be a non-negative integer, got ${value}.`);
  }
}
