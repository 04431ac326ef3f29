/**
 * CORS for the public operations (`/v1/public/…`) only: the secret-key operations send no CORS headers, so a
 * browser can never use a secret key from a page. A request from an origin in its publishable key's
 * `allowed_origins` gets that origin (never `*`) in `Access-Control-Allow-Origin`; any other origin gets no grant,
 * and its request is refused before anything runs (403 `origin_not_allowed`), since CORS only stops a browser from
 * reading the answer, not the request from being made. A preflight carries no key: it is granted to an origin that
 * some active publishable key allows, and the real request is then held to its own key's origins.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Principal } from '../domain/access.js';
import { forbidden } from '../domain/errors.js';
import type { PublicOriginStore } from '../store/public-origin-store.js';

/** What a page may send and read: the public operations' methods, request headers and response headers. */
const corsPolicy = {
  methods: 'GET, POST, PATCH',
  requestHeaders: 'Authorization, Content-Type, Idempotency-Key',
  exposedHeaders: 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed',
  /** How long a browser may keep a preflight's answer. */
  maxAgeSeconds: 600,
} as const;

/** Every public response depends on the request's Origin, granted or not: caches must keep them apart. */
function varyOnOrigin(res: Response): void {
  res.vary('Origin');
}

function grant(res: Response, origin: string): void {
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', corsPolicy.exposedHeaders);
}

/**
 * Answers browsers' preflights (`OPTIONS` with `Access-Control-Request-Method`) on the public paths: 204, with the
 * grant for an origin some key allows and without it otherwise. Other requests go on, marked as varying by Origin.
 * The store keeps its verdicts in memory, and forgets them when a key changes: an origin just added to a key is
 * granted by the next preflight, in every process.
 */
export function answerPreflight(store: PublicOriginStore): RequestHandler {
  return async (req, res, next) => {
    varyOnOrigin(res);
    const origin = req.get('origin');
    if (req.method !== 'OPTIONS' || req.get('access-control-request-method') === undefined) return next();
    if (origin !== undefined && (await store.anyKeyAllows(origin))) {
      grant(res, origin);
      res.setHeader('Access-Control-Allow-Methods', corsPolicy.methods);
      res.setHeader('Access-Control-Allow-Headers', corsPolicy.requestHeaders);
      res.setHeader('Access-Control-Max-Age', String(corsPolicy.maxAgeSeconds));
    }
    res.status(204).end();
  };
}

/**
 * The one origin of the hosted pages' key: the service's own. That is the origin of the configured public base URL,
 * where the pages are served from (a proxy in front may well rewrite the Host it passes on); only where none is
 * configured, the host the browser asked (plain HTTP never gets this far).
 */
export function hostedPagesOrigin(req: Request, publicBaseUrl: string | undefined): string {
  return publicBaseUrl === undefined ? `https://${req.get('host')}` : new URL(publicBaseUrl).origin;
}

/**
 * After a publishable key is authenticated: a request from a browser (it sends `Origin`) must come from one of the
 * key's origins, and gets the grant; a request without `Origin` (a server, curl) is not a browser's and goes on.
 */
export function grantPublicOrigin(req: Request, res: Response, principal: Principal, publicBaseUrl: string | undefined): void {
  const origin = req.get('origin');
  if (origin === undefined) return;
  const allowed = principal.publishable?.hostedPage
    ? [hostedPagesOrigin(req, publicBaseUrl)]
    : (principal.publishable?.key.allowed_origins ?? []);
  if (!allowed.includes(origin)) {
    throw forbidden(
      'origin_not_allowed',
      `This publishable key does not allow the origin ${origin}; add it to the key's allowed_origins to use the key there.`,
    );
  }
  grant(res, origin);
}
