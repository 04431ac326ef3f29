/**
 * The request stages before the handler, in order: request id → HTTPS → route (404/405) → failed-auth
 * budget → authentication → per-key and per-workspace limits → scope → body parsing. Authentication comes
 * before the key and workspace limits because those limits are counted per key and per workspace; the
 * per-address budget for failed authentications is checked first, without touching the database.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Scope } from '../contract.js';
import { AppError, forbidden } from '../domain/errors.js';
import { authenticate, type LastUsedRecorder } from '../domain/keys/authenticate.js';
import type { Services } from '../domain/services.js';
import { newId } from '../ids.js';
import { connectionInfo } from './client-address.js';
import { type Contract, matchOperation } from './contract-document.js';
import { stateOf } from './locals.js';
import { checkFailedAuthBudget, consumeRequest, peekFailedAuthBudget, type RateLimitPolicy, recordFailedAuth } from './rate-limits.js';

export const maxBodyBytes = 1024 * 1024;

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
 * Rate-limit headers go on every response. Until a key is known (unknown path, plain HTTP, 401) they
 * report the caller's address budget for failed authentications.
 */
export function reportAddressLimits(limits: RateLimitPolicy): RequestHandler {
  return async (_req, res, next) => {
    await peekFailedAuthBudget(limits, res, stateOf(res).clientIp);
    next();
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
  return (req, res, next) => {
    const match = matchOperation(contract.operations, req.method, req.path);
    if (!match) {
      throw new AppError({ status: 404, type: 'not_found', code: 'route_not_found', message: `No operation has the path ${req.path}.` });
    }
    if ('allowed' in match) {
      const allow = match.allowed.join(', ');
      res.setHeader('Allow', allow);
      const hint = req.method === 'PUT' && match.allowed.includes('PATCH') ? ' Update with PATCH; omitted fields are left unchanged.' : '';
      throw new AppError({
        status: 405,
        type: 'invalid_request',
        code: 'method_not_allowed',
        message: `${req.method} is not allowed on this path. Allowed: ${allow}.${hint}`,
        details: { allowed_methods: match.allowed as Array<'GET' | 'POST' | 'PATCH' | 'DELETE'> },
      });
    }
    const names = [...match.operation.path.matchAll(/\{([^}]+)\}/g)].map((found) => found[1]!);
    const state = stateOf(res);
    state.operation = match.operation;
    state.pathParams = Object.fromEntries(names.map((name, index) => [name, match.params[index]!]));
    next();
  };
}

export function authenticateCaller(services: Services, limits: RateLimitPolicy, lastUsed: LastUsedRecorder): RequestHandler {
  return async (req, res, next) => {
    const state = stateOf(res);
    await checkFailedAuthBudget(limits, res, state.clientIp);
    if (!state.operation?.authenticated) {
      // Operations without a key (the OAuth token endpoint) authenticate with what the body carries: a
      // rejected code, token or client counts against the address like a rejected key.
      res.on('finish', () => {
        if (res.statusCode === 400 || res.statusCode === 401) void recordFailedAuth(limits, res, state.clientIp).catch(() => {});
      });
      return next();
    }
    try {
      state.principal = await authenticate(services, req.get('authorization'), state.clientIp, lastUsed);
    } catch (error) {
      if (error instanceof AppError && error.status === 401) await recordFailedAuth(limits, res, state.clientIp);
      throw error;
    }
    await consumeRequest(limits, res, state.principal.id, state.principal.workspace.id);
    next();
  };
}

/** The operation's minimum scope comes from its security requirement in the document. */
export function requireScope(contract: Contract): RequestHandler {
  const rank = (scope: Scope) => contract.scopeOrder.indexOf(scope);
  return (_req, res, next) => {
    const { operation, principal } = stateOf(res);
    if (operation?.minScope && principal && rank(principal.scope) < rank(operation.minScope)) {
      throw forbidden('insufficient_scope', `This operation needs the ${operation.minScope} scope; this key has ${principal.scope}.`, {
        required_scope: operation.minScope,
        granted_scope: principal.scope,
      });
    }
    next();
  };
}

const hasBody = (req: Request): boolean =>
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;

/** Parses JSON (or the OAuth form encoding) only for operations that take a body, up to 1 MiB. */
export function parseBody(): RequestHandler {
  const json = express.json({ limit: maxBodyBytes, type: 'application/json', strict: false });
  const form = express.urlencoded({ limit: maxBodyBytes, extended: false });
  return (req: Request, res: Response, next: NextFunction) => {
    const { operation } = stateOf(res);
    if (!operation?.hasRequestBody || !hasBody(req)) return next();
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) return next(payloadTooLarge());
    const isForm = operation.operationId === 'createOAuthToken';
    if (!req.is(isForm ? 'application/x-www-form-urlencoded' : 'application/json')) {
      return next(
        new AppError({
          status: 415,
          type: 'invalid_request',
          code: 'unsupported_media_type',
          message: isForm ? 'Send the request body as application/x-www-form-urlencoded.' : 'Send the request body as application/json.',
        }),
      );
    }
    (isForm ? form : json)(req, res, next);
  };
}

export const payloadTooLarge = (): AppError =>
  new AppError({
    status: 413,
    type: 'invalid_request',
    code: 'payload_too_large',
    message: `The request body is larger than ${maxBodyBytes} bytes.`,
    details: { max_body_bytes: maxBodyBytes },
  });
