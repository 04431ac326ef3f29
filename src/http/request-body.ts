/**
 * Reading the request body: JSON (or the OAuth token endpoint's form encoding), UTF-8 only, up to 1 MiB after
 * decompression (`Content-Encoding` gzip, deflate or br), nested at most `maxBodyDepth` levels, without NUL or
 * unpaired surrogates in any string. Every way a body can fail to arrive or decode is answered here as a 4xx
 * problem, so nothing a client sends reaches the error handler as an unknown error.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { ValidationIssue } from '../contract.js';
import { AppError, badRequest } from '../domain/errors.js';
import { checkJsonBody } from './json-hygiene.js';
import { stateOf } from './locals.js';

export const maxBodyBytes = 1024 * 1024;

const hasBody = (req: Request): boolean =>
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;

/** Parses JSON (or the OAuth form encoding) only for operations that take a body. */
export function parseBody(): RequestHandler {
  const json = express.json({ limit: maxBodyBytes, type: 'application/json', strict: false, verify: requireUtf8 });
  const form = express.urlencoded({ limit: maxBodyBytes, extended: false, verify: requireUtf8 });
  return (req: Request, res: Response, next: NextFunction) => {
    const { operation } = stateOf(res);
    if (!operation?.hasRequestBody || !hasBody(req)) return next();
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) return next(payloadTooLarge());
    const isForm = operation.operationId === 'createOAuthToken';
    if (!req.is(isForm ? 'application/x-www-form-urlencoded' : 'application/json')) {
      return next(unsupportedMediaType(isForm ? 'Send the request body as application/x-www-form-urlencoded.' : undefined));
    }
    (isForm ? form : json)(req, res, (error?: unknown) => {
      if (error !== undefined) return next(fromBodyParserError(error));
      const issues = checkJsonBody(req.body);
      if (issues.length > 0) return next(invalidBody(issues));
      next();
    });
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

const unsupportedMediaType = (message = 'Send the request body as UTF-8 application/json.'): AppError =>
  new AppError({ status: 415, type: 'invalid_request', code: 'unsupported_media_type', message });

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
function requireUtf8(_req: Request, _res: Response, body: Buffer, encoding: string): void {
  if (!/^utf-?8$/i.test(encoding)) throw unsupportedMediaType(`The charset ${encoding} is not accepted; send UTF-8.`);
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
const bodyParserErrors: Record<string, () => AppError> = {
  'entity.parse.failed': () => invalidJson('The request body is not valid JSON.'),
  'entity.verify.failed': () => invalidJson('The request body is not valid UTF-8.'),
  'entity.too.large': payloadTooLarge,
  'encoding.unsupported': () => unsupportedMediaType('Content-Encoding must be gzip, deflate, br or identity.'),
  'charset.unsupported': () => unsupportedMediaType(),
  'request.aborted': () => invalidJson('The request body ended before it was complete.'),
  'request.size.invalid': () => invalidJson('The request body is not as long as its Content-Length says.'),
};

function fromBodyParserError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const { type, status } = (error ?? {}) as { type?: unknown; status?: unknown };
  const known = typeof type === 'string' ? bodyParserErrors[type] : undefined;
  if (known) return known();
  if (status === 400) return invalidJson('The request body could not be decoded as its Content-Encoding says.');
  // stream.encoding.set and stream.not.readable: the body was already read or decoded by our own code.
  return error;
}
