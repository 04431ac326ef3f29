/**
 * Request and response validation against the contract with express-openapi-validator, configured as the
 * reference server configures it, and the translation of its errors into problems with one `details.errors`
 * entry per issue (location, JSON Pointer, code).
 */
import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { basePath, type OpenApiDocument, structuredMediaTypes } from './contract.js';
import {
  type ApiError,
  internalError,
  invalidParameters,
  type ResponseIssue,
  routeNotFound,
  unsupportedMediaType,
  type ValidationIssue,
} from './problem.js';

export function contractValidator(document: OpenApiDocument): RequestHandler[] {
  // The validator takes the base path from `servers`; the published servers are absolute URLs.
  const apiSpec = forAjvDiscriminators(
    withFileBodiesUnchecked(withBodyDiscriminatorsNested({ ...structuredClone(document), servers: [{ url: basePath }] })),
  );
  return OpenApiValidator.middleware({
    apiSpec: apiSpec as never,
    validateApiSpec: false,
    validateRequests: {
      allErrors: true,
      allowUnknownQueryParameters: false,
      // A JSON body has real types: coercing it would accept "5" for a number (parameters, which arrive as
      // text, are coerced whatever this says).
      coerceTypes: false,
      removeAdditional: false,
      // Ajv picks the one branch a discriminator names instead of trying (and reporting) every branch.
      discriminator: true,
    },
    // A handler answer that breaks the contract becomes a 500 here rather than reaching a client.
    validateResponses: { allErrors: true, removeAdditional: false },
    // The pipeline authenticates before the body is read (app.ts).
    validateSecurity: false,
    fileUploader: false,
    validateFormats: true,
    ajvFormats: { mode: 'full' },
    // Handlers answer dates as ISO strings: no serialisers, but ajv-formats still checks the strings.
    serDes: [{ format: 'date' }, { format: 'date-time' }],
    ignoreUndocumented: true,
  }) as unknown as RequestHandler[];
}

/**
 * A body the contract takes as a file arrives as bytes (app.ts), not as the string its schema describes: the
 * validator passes over a `format: binary` body, and still refuses a media type the operation does not list.
 */
function withFileBodiesUnchecked(document: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Array<{ requestBody?: { content?: Record<string, { schema?: unknown }> } }>) {
      for (const [mediaType, media] of Object.entries(operation?.requestBody?.content ?? {})) {
        if (!structuredMediaTypes.has(mediaType)) media.schema = { type: 'string', format: 'binary' };
      }
    }
  }
  return document;
}

/**
 * A discriminator at the top of a request body (the OAuth token request) is handled by the validator itself,
 * which fails on an empty body; one `allOf` level down, Ajv validates it like every other one.
 */
function withBodyDiscriminatorsNested(document: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Array<{ requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }>) {
      for (const media of Object.values(operation?.requestBody?.content ?? {})) {
        const ref = media.schema?.$ref;
        const name = ref?.slice(ref.lastIndexOf('/') + 1);
        if (name && document.components.schemas[name]?.discriminator) media.schema = { allOf: [media.schema] } as never;
      }
    }
  }
  return document;
}

/**
 * Ajv reads each branch from its `const` and rejects `mapping` (which is for readers). With `discriminator: true`
 * Ajv applies the keyword to objects only, so a union that does not say `type: object` would let an array through.
 */
function forAjvDiscriminators<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(forAjvDiscriminators);
  else if (node !== null && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    const discriminator = schema.discriminator;
    if (discriminator && typeof discriminator === 'object' && Array.isArray(schema.oneOf)) {
      delete (discriminator as { mapping?: unknown }).mapping;
      schema.type ??= 'object';
    }
    for (const value of Object.values(schema)) forAjvDiscriminators(value);
  }
  return node;
}

interface ValidatorError {
  status: number;
  message: string;
  path?: string;
  errors: Array<{ path: string; message: string; errorCode?: string }>;
}

export const isValidatorError = (error: unknown): error is ValidatorError =>
  typeof error === 'object' && error !== null && 'status' in error && 'errors' in error && Array.isArray((error as ValidatorError).errors);

const locations: Record<string, ValidationIssue['location']> = {
  body: 'body',
  query: 'query',
  params: 'path',
  path: 'path',
  headers: 'header',
};

/** `maxLength.openapi.validation` → `max_length`; an unknown query parameter → `additional_property`. */
function issueCode(errorCode: string | undefined, message: string): string {
  if (message.startsWith('Unknown query parameter')) return 'additional_property';
  const keyword = (errorCode ?? 'invalid').split('.')[0]!;
  const aliases: Record<string, string> = { additionalProperties: 'additional_property', oneOf: 'one_of', anyOf: 'one_of' };
  const code = aliases[keyword] ?? keyword.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`).replace(/[^a-z0-9_]/g, '');
  return /^[a-z]/.test(code) ? code.slice(0, 64) : 'invalid';
}

function toIssue(entry: ValidatorError['errors'][number]): ValidationIssue {
  // Paths look like `/body/steps/0/name`, `/query/limit`, `/params/id`, `/headers/idempotency-key`.
  const [, part = 'body', ...rest] = entry.path.split('/');
  let pointer = rest.length > 0 ? `/${rest.join('/')}` : '';
  const additional =
    /must NOT have additional properties.*?'([^']+)'/.exec(entry.message) ?? /Unknown query parameter '([^']+)'/.exec(entry.message);
  if (additional?.[1] && !pointer.endsWith(`/${additional[1]}`)) pointer += `/${additional[1]}`;
  return {
    location: locations[part] ?? 'body',
    pointer: pointer.slice(0, 512),
    code: issueCode(entry.errorCode, entry.message),
    message: entry.message.slice(0, 1000),
  };
}

/**
 * What the response validator found wrong with a handler's answer: its paths look like `/response/workspace/id`
 * (or name the request when no schema fits the status at all), the pointer is the part inside the body.
 */
export function responseIssues(error: ValidatorError): ResponseIssue[] {
  return error.errors.map((entry) => ({
    pointer: /^\/response(\/|$)/.test(entry.path ?? '') ? entry.path.slice('/response'.length).slice(0, 512) : '',
    code: issueCode(entry.errorCode, entry.message),
    message: entry.message.slice(0, 1000),
  }));
}

/** Request validation failures become 400/404/415 problems; anything else from the validator is the server's fault. */
export function fromValidatorError(error: ValidatorError, expectedMediaType: string): ApiError {
  if (error.status === 400) return invalidParameters(error.errors.map(toIssue));
  if (error.status === 415) return unsupportedMediaType(expectedMediaType);
  if (error.status === 404) return routeNotFound(error.path ?? '');
  return internalError();
}
