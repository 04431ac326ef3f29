/**
 * Stages for the public operations' paths only (`/v1/public/…`), mounted by app.ts before the API pipeline: the
 * per-address limit, before any other work is done for a request (a preflight included), then CORS preflights,
 * which carry no key and are answered here (cors.ts). The key's own origins are checked once it is known
 * (`grantPublicOrigin`, in the pipeline's authentication).
 */
import type { RequestHandler } from 'express';
import type { Services } from '../domain/services.js';
import { answerPreflight } from './cors.js';
import { stateOf } from './locals.js';
import { limitBeforeAuthentication, type RateLimitPolicy } from './rate-limits.js';

/** The per-address limit of public requests; one budget for the public operations and the hosted pages. */
export function publicAddressLimit(limits: RateLimitPolicy): RequestHandler {
  return async (_req, res, next) => {
    await limitBeforeAuthentication(limits, res, stateOf(res).clientIp);
    next();
  };
}

/** The per-address limit first, then the preflights (their verdicts come from the store, which keeps them current). */
export function publicStages(services: Services, limitAddress: RequestHandler): RequestHandler[] {
  return [limitAddress, answerPreflight(services.store.publicOrigins)];
}
