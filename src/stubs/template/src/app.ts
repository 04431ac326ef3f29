/**
 * The server's pipeline, in the order the contract needs it: request id, routing (404, 405 with `Allow`), the
 * bearer-key check and minimum scope, body parsing, request validation, the handler, response validation, and one
 * error handler that turns every failure into problem+json. Handlers only ever see valid requests.
 */
import { randomInt } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import {
  type ApiKey,
  lookUpKey as defaultLookUpKey,
  lookUpPublishableKey as defaultLookUpPublishableKey,
  isPublishableKey,
} from './auth.js';
import {
  basePath,
  loadDocument,
  matchRoute,
  type OpenApiDocument,
  type Operation,
  readOperations,
  requestMediaTypes,
  resolve,
  structuredMediaTypes,
} from './contract.js';
import type { Handlers } from './handler-types.js';
import {
  ApiError,
  insufficientScope,
  internalError,
  invalidApiKey,
  invalidJson,
  methodNotAllowed,
  notImplementedBody,
  payloadTooLarge,
  problemBody,
  publishableKeyNotAllowed,
  routeNotFound,
  secretKeyNotAllowed,
  unsupportedMediaType,
} from './problem.js';
import { contractValidator, fromValidatorError, isValidatorError, responseIssues } from './validator.js';

export interface AppOptions {
  handlers: Handlers;
  /** The contract; openapi/openapi.json when omitted. */
  document?: OpenApiDocument;
  lookUpKey?: (secret: string) => Promise<ApiKey | undefined>;
  lookUpPublishableKey?: (value: string) => Promise<ApiKey | undefined>;
  /** Where failures that are the server's fault are reported (a broken response, a handler that threw). */
  logError?: (error: unknown) => void;
  /**
   * Whether a 500 caused by the response validation says what was wrong in `details.response_errors`, for the
   * conformance kit and the person writing the handler. Default: outside production (NODE_ENV !== 'production').
   */
  explainResponseErrors?: boolean;
}

interface Locals {
  requestId: string;
  operation?: Operation;
  key?: ApiKey;
}

type Answer = { status: number; body?: Record<string, unknown>; contentType?: string; text?: string; headers?: Record<string, string> };
type AnyHandler = (input: unknown) => Promise<Answer | { notImplemented: string }>;

const idAlphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const newRequestId = () => `req_${Array.from({ length: 24 }, () => idAlphabet[randomInt(idAlphabet.length)]).join('')}`;

/** Exactly `Bearer <token68>`: the scheme is case-sensitive, one space, nothing after the credential. */
const bearer = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;

export function buildApp(options: AppOptions): Express {
  const document = options.document ?? loadDocument();
  const operations = readOperations(document);
  const scopeOrder = (document.components.schemas.Scope?.enum as string[] | undefined) ?? [];
  const lookUpKey = options.lookUpKey ?? defaultLookUpKey;
  const lookUpPublishableKey = options.lookUpPublishableKey ?? defaultLookUpPublishableKey;
  const logError = options.logError ?? ((error: unknown) => console.error(error));
  const explainResponseErrors = options.explainResponseErrors ?? process.env.NODE_ENV !== 'production';
  const locals = (res: express.Response) => res.locals as Locals;

  const app = express();
  app.disable('x-powered-by');

  // A client-sent X-Request-Id is not trusted as the id: every request gets a new one.
  app.use((_req, res, next) => {
    locals(res).requestId = newRequestId();
    res.setHeader('X-Request-Id', locals(res).requestId);
    next();
  });

  app.use((req, res, next) => {
    const path = req.path.startsWith(`${basePath}/`) ? req.path.slice(basePath.length) : undefined;
    const match = path === undefined ? undefined : matchRoute(operations, req.method, path);
    if (!match) throw routeNotFound(req.path);
    if ('allowed' in match) throw methodNotAllowed(req.method, match.allowed);
    locals(res).operation = match.found;
    next();
  });

  const authenticate: RequestHandler = async (req, res, next) => {
    const operation = locals(res).operation!;
    if (operation.security.length === 0 || operation.security.some((requirement) => Object.keys(requirement).length === 0)) return next();
    const credential = bearer.exec(req.get('Authorization') ?? '')?.[1];
    if (!credential) throw invalidApiKey('Send the key as `Authorization: Bearer <API_KEY>`.');
    // The security requirement names the kind of key: the public operations take a publishable key and nothing else.
    const publicOperation = operation.security.some((requirement) => 'publishableKey' in requirement);
    let key: ApiKey | undefined;
    if (publicOperation) {
      // A secret key is refused for what it is, so that nobody is tempted to put one in a page.
      if (!isPublishableKey(credential) && (await lookUpKey(credential))) throw secretKeyNotAllowed();
      key = isPublishableKey(credential) ? await lookUpPublishableKey(credential) : undefined;
      if (!key) throw invalidApiKey('The publishable key is unknown or revoked.');
    } else {
      if (isPublishableKey(credential)) throw publishableKeyNotAllowed();
      key = await lookUpKey(credential);
      if (!key) throw invalidApiKey('The API key is unknown, expired or revoked.');
    }
    // The minimum scope is the one the operation's security requirement lists; scopes are ordered in the Scope enum.
    const needed = Object.values(operation.security[0] ?? {})[0]?.[0];
    if (needed && scopeOrder.indexOf(key.scope) < scopeOrder.indexOf(needed)) throw insufficientScope(needed);
    locals(res).key = key;
    next();
  };
  app.use(authenticate);

  app.use(express.json({ limit: '1mb', type: 'application/json' }));
  app.use(express.urlencoded({ limit: '1mb', extended: false, type: 'application/x-www-form-urlencoded' }));
  // A body the contract takes as a file (a form's logo: image/png, image/jpeg, image/webp) reaches its handler as the
  // bytes sent; what they are is the handler's to check, and its size against the body schema's maxLength.
  const fileTypes = [...new Set(operations.flatMap(requestMediaTypes))].filter((type) => !structuredMediaTypes.has(type));
  if (fileTypes.length > 0) app.use(express.raw({ limit: '1mb', type: fileTypes }));
  app.use(...contractValidator(document));

  const dispatch: RequestHandler = async (req, res) => {
    const { operation, requestId, key } = locals(res);
    const handler = (options.handlers as unknown as Record<string, AnyHandler>)[operation!.operationId];
    if (!handler) throw internalError();
    const answer = await handler({
      params: (req as { openapi?: { pathParams?: unknown } }).openapi?.pathParams ?? {},
      query: req.query,
      body: req.body,
      key,
      requestId,
      header: (name: string) => req.get(name),
    });
    if ('notImplemented' in answer) {
      // Sent with res.send, past the response validator: the contract does not declare 501 (see problem.ts).
      res
        .status(501)
        .type('application/problem+json')
        .send(JSON.stringify(notImplementedBody(answer.notImplemented, requestId)));
      return;
    }
    res.status(answer.status).set(answer.headers ?? {});
    if (answer.text !== undefined) res.type(answer.contentType ?? 'text/plain').send(answer.text);
    else if (answer.body !== undefined) {
      res.type(answer.status >= 400 ? 'application/problem+json' : 'application/json').json({ ...answer.body, request_id: requestId });
    } else res.end();
  };
  app.use(dispatch);

  const handleError: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    const { operation, requestId } = locals(res);
    const problem = toApiError(error, operation, logError, explainResponseErrors);
    if (res.headersSent) return;
    res
      .status(problem.status)
      .set(problem.headers)
      .type('application/problem+json')
      .json({ ...problemBody(problem, requestId), ...oauthMembers(document, operation, problem) });
  };
  app.use(handleError);
  return app;
}

function toApiError(
  error: unknown,
  operation: Operation | undefined,
  logError: (error: unknown) => void,
  explainResponseErrors: boolean,
): ApiError {
  if (error instanceof ApiError) return error;
  const bodyParserError = error as { type?: string };
  if (bodyParserError?.type === 'entity.parse.failed') return invalidJson();
  if (bodyParserError?.type === 'entity.too.large') return payloadTooLarge();
  if (bodyParserError?.type === 'charset.unsupported' || bodyParserError?.type === 'encoding.unsupported') {
    return unsupportedMediaType(requestMediaType(operation));
  }
  if (isValidatorError(error) && error.status < 500) return fromValidatorError(error, requestMediaType(operation));
  // A 500 from the response validator means a handler broke the contract: loud in the log, and generic to the
  // client in production; while the server is being written, the client (the conformance kit) is told what broke.
  logError(error);
  return internalError(explainResponseErrors && isValidatorError(error) ? responseIssues(error) : undefined);
}

/** What a 415 asks for: the operation's media type, or each of a file's (`image/png, image/jpeg or image/webp`). */
const requestMediaType = (operation: Operation | undefined) => {
  const types = requestMediaTypes(operation);
  if (types.length === 0) return 'application/json';
  return types.length === 1 ? types[0]! : `${types.slice(0, -1).join(', ')} or ${types.at(-1)}`;
};

/**
 * Problems whose documented schema requires RFC 6749's `error` member (the OAuth token endpoint's 400 and 401)
 * carry it, and `error_description`, beside the usual members.
 */
function oauthMembers(document: OpenApiDocument, operation: Operation | undefined, problem: ApiError): Record<string, string> {
  const response = resolve(document, operation?.responses[String(problem.status)]);
  const content = response.content as Record<string, { schema?: unknown }> | undefined;
  const schema = resolve(document, content?.['application/problem+json']?.schema);
  const parts = [schema, ...((schema.allOf as unknown[] | undefined) ?? []).map((part) => resolve(document, part))];
  if (!parts.some((part) => Array.isArray(part.required) && part.required.includes('error'))) return {};
  return { error: problem.status === 401 ? 'invalid_client' : 'invalid_request', error_description: problem.message };
}
