/**
 * The request stages that run before the handler. `buildApp` in app.ts puts them in order; the reasons for
 * that order sit beside it.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Scope } from '../contract.js';
import { AppError, forbidden, methodNotAllowed, routeNotFound } from '../domain/errors.js';
import { authenticate, type LastUsedRecorder } from '../domain/keys/authenticate.js';
import { authenticatePublishable } from '../domain/public/authenticate.js';
import type { Services } from '../domain/services.js';
import { newId } from '../ids.js';
import { connectionInfo } from './client-address.js';
import { type Contract, operationRouter } from './contract-document.js';
import { grantPublicOrigin } from './cors.js';
import { stateOf } from './locals.js';
import { limitAfterAuthentication, type RateLimitPolicy } from './rate-limits.js';

export function assignRequestId(): RequestHandler {
  return (_req, res, next) => {
    // A client-sent X-Request-Id is never trusted as the id: ids must be unique and ours to log.
    const requestId = newId('req');
    stateOf(res).requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    next();
  };
}

export function identifyConnection(trustedProxies: readonly string[]): RequestHandler {
  return (req, res, next) => {
    const { clientIp, secure } = connectionInfo(req, trustedProxies);
    Object.assign(stateOf(res), { clientIp, secure });
    next();
  };
}

/**
 * Rate-limit headers go on every response (rate-limits.ts says which). The public documents take no key: they report
 * the address's failed-authentication budget, as every answer without a credential does.
 */
export function reportAddressLimits(limits: RateLimitPolicy): RequestHandler {
  return async (_req, res, next) => {
    await limitAfterAuthentication(limits, res, stateOf(res).clientIp, { outcome: 'none' });
    next();
  };
}

/** The error stage's part of `reportAddressLimits`: a problem that no window has been reported for yet gets the address's. */
export function reportAddressLimitsOnProblem(limits: RateLimitPolicy): ErrorRequestHandler {
  return async (error: unknown, _req, res, next) => {
    const { clientIp } = stateOf(res);
    // Unknown only if a stage before `identifyConnection` failed: no address, no budget to report.
    if (!res.headersSent && !res.hasHeader('X-RateLimit-Limit') && clientIp !== undefined) {
      // The problem is the answer and the headers its company: a lookup that fails (a limiter store without an
      // insurance limiter) must not replace the problem with its own error. On a success path the same failure
      // is the request's error, as it always was.
      await limitAfterAuthentication(limits, res, clientIp, { outcome: 'none' }).catch(() => undefined);
    }
    next(error);
  };
}

export const requireHttps = (): RequestHandler => (_req, res, next) => {
  if (stateOf(res).secure !== true) throw forbidden('https_required', 'Plain HTTP is refused; use HTTPS.');
  next();
};

export function deprecationHeaders(deprecation: { at: string; sunset: string; successor: string } | null): RequestHandler {
  return (_req, res, next) => {
    if (deprecation) {
      res.setHeader('Deprecation', `@${Math.floor(Date.parse(deprecation.at) / 1000)}`);
      res.setHeader('Sunset', new Date(deprecation.sunset).toUTCString());
      res.setHeader('Link', `<${deprecation.successor}>; rel="successor-version"`);
    }
    next();
  };
}

export function routeOperation(contract: Contract): RequestHandler {
  const route = operationRouter(contract.operations);
  return (req, res, next) => {
    const match = route(req.method, req.path);
    if (!match) throw routeNotFound(req.path);
    if ('allowed' in match) {
      res.setHeader('Allow', match.allowed.join(', '));
      throw methodNotAllowed(req.method, match.allowed);
    }
    const state = stateOf(res);
    state.operation = match.operation;
    const pathParams: Record<string, string> = {};
    match.operation.pathParamNames.forEach((name, index) => {
      pathParams[name] = match.params[index]!;
    });
    state.pathParams = pathParams;
    next();
  };
}

export function authenticateCaller(
  services: Services,
  limits: RateLimitPolicy,
  lastUsed: LastUsedRecorder,
  publishableLastUsed: LastUsedRecorder,
): RequestHandler {
  const meter = services.apiRequests;
  return async (req, res, next) => {
    const state = stateOf(res);
    // Operations without a key (the OAuth token endpoint) authenticate with what the body carries; their
    // rejections are counted by `countFailedAuthentication` once the handler has decided. Until then their
    // answers report the address's budget.
    if (!state.operation?.authenticated) {
      await limitAfterAuthentication(limits, res, state.clientIp, { outcome: 'none' });
      return next();
    }
    const authorization = req.get('authorization');
    try {
      if (state.operation.publishable) {
        state.principal = await authenticatePublishable(services, authorization, publishableLastUsed);
        grantPublicOrigin(req, res, state.principal, services.publicBaseUrl);
      } else {
        state.principal = await authenticate(services, authorization, state.clientIp, lastUsed);
      }
    } catch (error) {
      if (error instanceof AppError && error.status === 401) {
        await limitAfterAuthentication(limits, res, state.clientIp, { outcome: 'refused' });
      }
      throw error;
    }
    const { principal } = state;
    const publishable = principal.authType === 'publishable_key';
    const credential = {
      credentialId: principal.credentialId,
      budget: publishable ? 'publishable' : 'secret',
      workspace: principal.workspace,
    } as const;
    await limitAfterAuthentication(limits, res, state.clientIp, { outcome: 'admitted', credential });
    // Metered once admitted, in memory (a flush writes the counts later). Test mode is never metered, and neither are
    // publishable keys: a form's visitors are not the workspace's integrations, and are not billed as its requests.
    if (meter && principal.environment === 'live' && !publishable) meter.count(principal.workspace.id, services.now());
    next();
  };
}

/**
 * For operations that authenticate with what the body carries (the OAuth token endpoint): a rejected code,
 * token or client counts against the address like a rejected key, and past the budget it is answered 429.
 */
export function countFailedAuthentication(limits: RateLimitPolicy): ErrorRequestHandler {
  return async (error: unknown, _req, res, next) => {
    const state = stateOf(res);
    const status = typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
    if (state.operation && !state.operation.authenticated && (status === 400 || status === 401)) {
      // Past the address's budget, its 429 is the answer instead of the rejection.
      return limitAfterAuthentication(limits, res, state.clientIp, { outcome: 'refused' }).then(() => next(error), next);
    }
    next(error);
  };
}

/** The credentials an operation takes and its minimum scope come from its security requirement in the document. */
export function requireScope(contract: Contract): RequestHandler {
  const rank = (scope: Scope) => contract.scopeOrder.indexOf(scope);
  return (_req, res, next) => {
    const { operation, principal } = stateOf(res);
    if (operation && principal?.authType === 'oauth_token' && !operation.acceptsOAuthTokens) {
      throw forbidden(
        'api_key_required',
        `${operation.operationId} takes an API key, not an OAuth access token (its security requirement lists API keys only).`,
      );
    }
    if (operation?.minScope && principal && rank(principal.scope) < rank(operation.minScope)) {
      throw forbidden('insufficient_scope', `This operation needs the ${operation.minScope} scope; this key has ${principal.scope}.`, {
        required_scope: operation.minScope,
        granted_scope: principal.scope,
      });
    }
    next();
  };
}
