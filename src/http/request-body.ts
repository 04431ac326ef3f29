/**
 * Reading the request body, in the media type the document gives the operation: UTF-8 only, up to 1 MiB after
 * decompression (`Content-Encoding` gzip, deflate or br), nested at most `maxBodyDepth` levels, without NUL or
 * unpaired surrogates in any string. A body the document takes as bytes (an uploaded image, in one of the media types
 * its `requestBody` lists) is read whole, up to its schema's `maxLength`, and handed on as a `RawBody`: what the bytes
 * are is the domain's to check. Every way a body can fail to arrive or decode is answered here as a 4xx problem, so
 * nothing a client sends reaches the error handler as an unknown error.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { ValidationIssue } from '../contract.js';
import { AppError, badRequest, payloadTooLarge, unsupportedMediaType } from '../domain/errors.js';
import type { Operation } from './contract-document.js';
import type { RawBody } from './handlers/types.js';
import { checkJsonBody } from './json-hygiene.js';
import { stateOf } from './locals.js';

const hasBody = (req: Request): boolean =>
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;

/** The media types an operation takes, as a 415 names them: `image/png, image/jpeg or image/webp`. */
export const expectedMediaTypes = (operation: Pick<Operation, 'requestMediaTypes'> | undefined): string => {
  const types = operation?.requestMediaTypes.length ? operation.requestMediaTypes : ['application/json'];
  return types.length === 1 ? types[0]! : `${types.slice(0, -1).join(', ')} or ${types.at(-1)}`;
};

/** Parses the body, in the media type the document gives the operation, only for operations that take one. */
export function parseBody(): RequestHandler {
  const parsers: Record<string, (limit: number) => RequestHandler> = {
    'application/json': (limit) => express.json({ limit, type: 'application/json', strict: false, verify: requireUtf8 }),
    'application/x-www-form-urlencoded': (limit) => express.urlencoded({ limit, extended: false, verify: requireUtf8 }),
  };
  // One parser per limit and media types: the document gives every operation its own, read when the app is built.
  const made = new Map<string, RequestHandler>();
  const parserOf = (operation: Operation): RequestHandler => {
    const key = `${operation.maxBodyBytes} ${operation.requestMediaTypes.join(' ')}`;
    let parser = made.get(key);
    if (!parser) {
      const structured = operation.rawBody ? undefined : parsers[operation.requestMediaTypes[0]!];
      if (!operation.rawBody && !structured) throw new Error(`No body parser for ${operation.requestMediaTypes[0]}.`);
      parser = structured ? structured(operation.maxBodyBytes) : rawParser(operation);
      made.set(key, parser);
    }
    return parser;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const operation = stateOf(res).operation;
    if (!operation || operation.requestMediaTypes.length === 0) return next();
    if (!hasBody(req)) {
      // An empty file is still a file of its type, which the domain refuses for what it is (an empty image).
      const declaredType = (req.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (operation.rawBody && declaredType && operation.requestMediaTypes.includes(declaredType)) {
        req.body = { mediaType: declaredType, bytes: Buffer.alloc(0) } satisfies RawBody;
      }
      return next();
    }
    const { maxBodyBytes } = operation;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) return next(payloadTooLarge(maxBodyBytes));
    const mediaType = req.is([...operation.requestMediaTypes]);
    if (!mediaType) return next(unsupportedMediaType(expectedMediaTypes(operation)));
    parserOf(operation)(req, res, (error?: unknown) => {
      if (error !== undefined) return next(fromBodyParserError(error, expectedMediaTypes(operation), maxBodyBytes));
      if (operation.rawBody) {
        req.body = { mediaType, bytes: req.body } satisfies RawBody;
        return next();
      }
      const issues = checkJsonBody(req.body);
      if (issues.length > 0) return next(invalidBody(issues));
      next();
    });
  };
}

/**
 * The body as the bytes sent, decompressed as its `Content-Encoding` says, up to the operation's limit. express.raw
 * leaves a body of another type unread, which cannot happen here: the media type was matched first.
 */
const rawParser = (operation: Operation): RequestHandler =>
  express.raw({ limit: operation.maxBodyBytes, type: [...operation.requestMediaTypes] });

const invalidJson = (message: string, issue?: Omit<ValidationIssue, 'location' | 'pointer'>): AppError =>
  badRequest('invalid_json', message, issue ? [{ location: 'body', pointer: '', ...issue }] : undefined);

function invalidBody(issues: ValidationIssue[]): AppError {
  const plural = issues.length === 1 ? '1 invalid value' : `${issues.length} invalid values`;
  return badRequest('invalid_parameters', `The request body has ${plural}; see details.errors.`, issues);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON exchanged between systems is UTF-8 (RFC 8259 section 8.1). The parser would decode other charsets,
 * and replace bytes that are not UTF-8 with U+FFFD, storing text the client never sent: refuse both instead.
 * Runs on the decompressed bytes, before they are decoded.
 */
function requireUtf8(req: Request, _res: Response, body: Buffer, encoding: string): void {
  if (!/^utf-?8$/i.test(encoding)) throw unsupportedMediaType(`${req.get('content-type')?.split(';')[0] ?? 'JSON'} in UTF-8`);
  try {
    utf8.decode(body);
  } catch {
    throw invalidJson('The request body is not valid UTF-8.', { code: 'invalid_utf8', message: 'must be UTF-8 text' });
  }
}

/**
 * body-parser and raw-body errors by `type`. Decompression failures (a body that is not the gzip, deflate or br
 * its `Content-Encoding` names) come from zlib without a type; body-parser gives them status 400.
 */
const bodyParserErrors: Record<string, (mediaType: string, limit: number) => AppError> = {
  'entity.parse.failed': () => invalidJson('The request body is not valid JSON.'),
  'entity.verify.failed': () => invalidJson('The request body is not valid UTF-8.'),
  'entity.too.large': (_mediaType, limit) => payloadTooLarge(limit),
  'encoding.unsupported': (mediaType) => unsupportedMediaType(`${mediaType}, with Content-Encoding gzip, deflate, br or none`),
  'charset.unsupported': (mediaType) => unsupportedMediaType(`${mediaType} in UTF-8`),
  'request.aborted': () => invalidJson('The request body ended before it was complete.'),
  'request.size.invalid': () => invalidJson('The request body is not as long as its Content-Length says.'),
};

function fromBodyParserError(error: unknown, mediaType: string, limit: number): unknown {
  if (error instanceof AppError) return error;
  const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
  const known = typeof type === 'string' ? bodyParserErrors[type] : undefined;
  if (known) return known(mediaType, limit);
  if (status === 400) return invalidJson('The request body could not be decoded as its Content-Encoding says.');
  // stream.encoding.set and stream.not.readable: the body was already read or decoded by our own code.
  return error;
}
