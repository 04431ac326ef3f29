/**
 * Reading the request body, in the media type the document gives the operation: UTF-8 only, up to 1 MiB after
 * decompression (`Content-Encoding` gzip, deflate or br), nested at most `maxBodyDepth` levels, without NUL or
 * unpaired surrogates in any string. Every way a body can fail to arrive or decode is answered here as a 4xx
 * problem, so nothing a client sends reaches the error handler as an unknown error.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { ValidationIssue } from '../contract.js';
import { AppError, badRequest, payloadTooLarge, unsupportedMediaType } from '../domain/errors.js';
import { maxBodyBytes } from './documented-limits.js';
import { checkJsonBody } from './json-hygiene.js';
import { stateOf } from './locals.js';

const hasBody = (req: Request): boolean =>
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;

/** Parses the body, in the media type the document gives the operation, only for operations that take one. */
export function parseBody(): RequestHandler {
  const parsers: Record<string, RequestHandler> = {
    'application/json': express.json({ limit: maxBodyBytes, type: 'application/json', strict: false, verify: requireUtf8 }),
    'application/x-www-form-urlencoded': express.urlencoded({ limit: maxBodyBytes, extended: false, verify: requireUtf8 }),
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const mediaType = stateOf(res).operation?.requestMediaType;
    if (!mediaType || !hasBody(req)) return next();
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) return next(payloadTooLarge(maxBodyBytes));
    const parser = parsers[mediaType];
    if (!parser) throw new Error(`No body parser for ${mediaType}.`);
    if (!req.is(mediaType)) return next(unsupportedMediaType(mediaType));
    parser(req, res, (error?: unknown) => {
      if (error !== undefined) return next(fromBodyParserError(error, mediaType));
      const issues = checkJsonBody(req.body);
      if (issues.length > 0) return next(invalidBody(issues));
      next();
    });
  };
}

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
const bodyParserErrors: Record<string, (mediaType: string) => AppError> = {
  'entity.parse.failed': () => invalidJson('The request body is not valid JSON.'),
  'entity.verify.failed': () => invalidJson('The request body is not valid UTF-8.'),
  'entity.too.large': () => payloadTooLarge(maxBodyBytes),
  'encoding.unsupported': (mediaType) => unsupportedMediaType(`${mediaType}, with Content-Encoding gzip, deflate, br or none`),
  'charset.unsupported': (mediaType) => unsupportedMediaType(`${mediaType} in UTF-8`),
  'request.aborted': () => invalidJson('The request body ended before it was complete.'),
  'request.size.invalid': () => invalidJson('The request body is not as long as its Content-Length says.'),
};

function fromBodyParserError(error: unknown, mediaType: string): unknown {
  if (error instanceof AppError) return error;
  const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
  const known = typeof type === 'string' ? bodyParserErrors[type] : undefined;
  if (known) return known(mediaType);
  if (status === 400) return invalidJson('The request body could not be decoded as its Content-Encoding says.');
  // stream.encoding.set and stream.not.readable: the body was already read or decoded by our own code.
  return error;
}
