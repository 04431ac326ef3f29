/**
 * express-openapi-validator's middleware, without the work the pipeline has already done. It comes as named
 * stages; each waits on the loaded document (a promise turn per stage per request):
 * - `pathParamsMiddleware` registers `app.param` handlers, which only apply to routes declared with `:name`
 *   on the app; this app declares none (the operation's parameters are the pipeline's), so it is left out.
 * - `securityMiddleware` does nothing with `validateSecurity: false`: authentication is the pipeline's.
 * - `metadataMiddleware` finds the request's route by trying every path of the document in turn, after the
 *   pipeline has found the operation. Its answer for an operation is the same for every request but for the
 *   path parameters, so it is asked once per operation; later requests get that answer with the pipeline's
 *   parameters. A path with percent-encoding is always left to the validator, which refuses malformed ones.
 * - `requestMiddleware` checks the request against the operation's parameters and body. For an operation whose
 *   requests carry nothing the validator reads but their URL (`takesOnlyUrlParameters`: no body, no cookie
 *   parameters, and no header parameters but `If-None-Match`, whose value is then part of the URL's key), its
 *   verdict depends on the path parameters, the query string and that header alone, and so does the one
 *   thing it changes that the handler reads: `req.query`, which it coerces and fills in with defaults. So a verdict
 *   of "valid" is remembered for that URL with the query it left (frozen), and the same URL is not checked again:
 *   it gets that query. Refusals are never remembered, and the remembered URLs are bounded in number and length,
 *   oldest forgotten first. (A polling dashboard asks for the same page of a list again and again.)
 * A stage with another name (a later version of the library) is kept as it is.
 */
import type { Request, RequestHandler } from 'express';
import { deepFreeze, type Frozen } from '../frozen.js';
import { stateOf } from './locals.js';

/** The part of the validator's request metadata this module handles; the rest is passed on untouched. */
type RouteMetadata = { pathParams: Record<string, string> } & Record<string, unknown>;
type WithMetadata = { openapi?: RouteMetadata; params: Record<string, string> };

const unused = new Set(['pathParamsMiddleware', 'securityMiddleware']);

export function withoutRepeatedRouting(stages: RequestHandler[]): RequestHandler[] {
  return stages
    .filter((stage) => !unused.has(stage.name))
    .map((stage) =>
      stage.name === 'metadataMiddleware' ? oncePerOperation(stage) : stage.name === 'requestMiddleware' ? oncePerUrl(stage) : stage,
    );
}

/** Whether the validator's metadata describes this operation. */
const validatedAs = (request: WithMetadata, operationId: string): boolean =>
  (request.openapi?.schema as { operationId?: unknown } | undefined)?.operationId === operationId;

/** How many passed operation-and-URL pairs are remembered, and the longest key that is. */
const rememberedUrls = 10_000;
const longestRememberedKey = 256;

/**
 * `req.query` as the validator leaves it: its own property, writable, in place of Express's getter (which parses
 * the URL again on each read).
 */
const setQuery = (req: Request, query: Readonly<Record<string, unknown>>): void => {
  Object.defineProperty(req, 'query', { writable: true, value: query });
};

function oncePerUrl(validate: RequestHandler): RequestHandler {
  // The query each passed URL left, or null for an operation without query parameters (whose `req.query` the
  // check leaves as Express parses it).
  const passed = new Map<string, Frozen<Record<string, unknown>> | null>();
  return (req, res, next) => {
    const { operation, pathParams } = stateOf(res);
    let key: string | undefined;
    if (operation?.takesOnlyUrlParameters) {
      const queryAt = req.originalUrl.indexOf('?');
      // The parameters and the query string as one unambiguous text (a value may hold any character once decoded).
      key = JSON.stringify([
        operation.operationId,
        queryAt < 0 ? null : req.originalUrl.slice(queryAt + 1),
        (operation.verdictHeaders ?? []).map((header) => req.get(header) ?? null),
        ...Object.values(pathParams ?? {}),
      ]);
      const query = passed.get(key);
      if (query !== undefined) {
        if (query !== null) setQuery(req, query);
        return next();
      }
    }
    validate(req, res, (error?: unknown) => {
      // Remembered: a pass against this very operation, of values the pipeline has no issue with either (`1e0` for
      // a version passes the validator and is refused after it), short enough that the bound bounds memory too (an
      // integer may be written with thousands of leading zeros).
      const remember =
        error === undefined &&
        key !== undefined &&
        key.length <= longestRememberedKey &&
        !stateOf(res).parameterIssues?.length &&
        validatedAs(req as unknown as WithMetadata, operation!.operationId);
      if (remember) {
        if (passed.size >= rememberedUrls) passed.delete(passed.keys().next().value!);
        // A copy, frozen: the request's own query stays as the handler of this request may use it. Without a
        // prototype, as Express's query parser and so the validator leave it.
        passed.set(
          key!,
          operation!.takesQueryParameters
            ? deepFreeze(
                Object.assign(Object.create(null) as Record<string, unknown>, structuredClone(req.query as Record<string, unknown>)),
              )
            : null,
        );
      }
      next(error);
    });
  };
}

function oncePerOperation(metadata: RequestHandler): RequestHandler {
  const byOperation = new Map<string, RouteMetadata>();
  return (req, res, next) => {
    const { operation, pathParams } = stateOf(res);
    const request = req as unknown as WithMetadata;
    const known = operation && byOperation.get(operation.operationId);
    if (known && !req.path.includes('%')) {
      request.openapi = { ...known, pathParams: { ...pathParams } };
      request.params = request.openapi.pathParams;
      return next();
    }
    metadata(req, res, (error?: unknown) => {
      // Only an answer for the pipeline's own operation is kept: were the two ever to disagree on a path, the
      // validator's choice must not become every later request's.
      if (error === undefined && operation && validatedAs(request, operation.operationId))
        byOperation.set(operation.operationId, { ...request.openapi! });
      next(error);
    });
  };
}
