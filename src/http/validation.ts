/**
 * express-openapi-validator, configured from the contract, and the translation of its errors into
 * problem responses with one `details.errors` entry per issue (location, JSON Pointer, code).
 */

import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { ValidationIssue } from '../contract.js';
import { type AppError, badRequest, internalError, unsupportedMediaType } from '../domain/errors.js';
import type { OpenApiDocument } from './contract-document.js';
import { rememberValidatedReads } from './validated-responses.js';

export function openApiValidator(document: OpenApiDocument, options: { validateResponses: boolean }): RequestHandler[] {
  // The validator finds the base path in `servers`; the published servers are absolute URLs (production,
  // mock), so the server validates against a copy whose only server is its own mount point.
  const apiSpec = withoutDiscriminatorMappings(withBodyDiscriminatorsNested(structuredClone({ ...document, servers: [{ url: '/v1' }] })));
  const validator = OpenApiValidator.middleware({
    apiSpec: apiSpec as never,
    validateApiSpec: false,
    // Ajv's discriminator support picks the one branch named by `type`/`op`/`action` instead of trying every
    // branch of a oneOf: without it, the request validator's `useDefaults` would write the defaults of the
    // branches that fail (a short_text `max_length` onto an email field) into the body.
    // `coerceTypes` applies to bodies only (path and query parameters, which arrive as text, are always
    // coerced by the validator). A JSON body has real types: coercing it would accept `"5"` for a number
    // and break every `oneOf` of scalars (a condition's `value: 5` would match both string and number).
    validateRequests: {
      allErrors: true,
      allowUnknownQueryParameters: false,
      coerceTypes: false,
      removeAdditional: false,
      discriminator: true,
    },
    validateResponses: options.validateResponses ? { allErrors: true, removeAdditional: false } : false,
    // Authentication and scopes are enforced by our own middleware before the body is even parsed.
    validateSecurity: false,
    validateFormats: true,
    ajvFormats: { mode: 'full' },
    // Handlers answer dates as ISO strings, never Date objects, so the validator's default date serialisers
    // have nothing to do; left in, they run before the type check on every value a date schema is tried
    // against (every branch of a oneOf), and throw on each number they meet. Naming the formats without a
    // serialiser replaces the defaults; ajv-formats still checks the strings.
    serDes: [{ format: 'date' }, { format: 'date-time' }],
    ignoreUndocumented: true,
  }) as unknown as RequestHandler[];
  return options.validateResponses ? [...validator, rememberValidatedReads()] : validator;
}

/**
 * A discriminator at the top of a request body (the OAuth token request) is validated by the validator itself,
 * which names the branches after their `$ref` once `mapping` is gone and fails on an empty body. One `allOf`
 * level down, Ajv's discriminator validates it like every other one.
 */
function withBodyDiscriminatorsNested<T extends OpenApiDocument>(document: T): T {
  const schemas = document.components.schemas as Record<string, { discriminator?: unknown }>;
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Array<{ requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } }>) {
      for (const media of Object.values(operation?.requestBody?.content ?? {})) {
        const ref = media.schema?.$ref;
        if (ref && schemas[ref.slice(ref.lastIndexOf('/') + 1)]?.discriminator) media.schema = { allOf: [media.schema] } as never;
      }
    }
  }
  return document;
}

/** Ajv reads the branch from each branch's `const`; it rejects `mapping`, which is for documentation readers. */
function withoutDiscriminatorMappings<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(withoutDiscriminatorMappings);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'discriminator' && value && typeof value === 'object') delete (value as { mapping?: unknown }).mapping;
      else withoutDiscriminatorMappings(value);
    }
  }
  return node;
}

interface ValidatorError {
  status: number;
  message: string;
  errors?: Array<{ path: string; message: string; errorCode?: string }>;
  headers?: Record<string, string>;
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

/** `maxLength.openapi.validation` → `max_length`; unknown query parameters → `additional_property`. */
function issueCode(errorCode: string | undefined, message: string): string {
  if (message.startsWith('Unknown query parameter')) return 'additional_property';
  const keyword = (errorCode ?? 'invalid').split('.')[0]!;
  const aliases: Record<string, string> = {
    additionalProperties: 'additional_property',
    oneOf: 'one_of',
    anyOf: 'one_of',
    minProperties: 'min_properties',
  };
  return aliases[keyword] ?? keyword.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`).replace(/[^a-z0-9_]/g, '') ?? 'invalid';
}

function toIssue(entry: { path: string; message: string; errorCode?: string }): ValidationIssue {
  // Paths look like `/body/steps/0/name`, `/query/limit`, `/params/id`, `/headers/idempotency-key`.
  const [, part = 'body', ...rest] = entry.path.split('/');
  let pointer = rest.length > 0 ? `/${rest.join('/')}` : '';
  const additional =
    /must NOT have additional properties.*?'([^']+)'/.exec(entry.message) ?? /Unknown query parameter '([^']+)'/.exec(entry.message);
  if (additional?.[1] && !pointer.endsWith(`/${additional[1]}`)) pointer += `/${additional[1]}`;
  return {
    location: locations[part] ?? 'body',
    pointer: pointer.slice(0, 512),
    code: issueCode(entry.errorCode, entry.message).slice(0, 64) || 'invalid',
    message: entry.message.slice(0, 1000),
  };
}

/** Request validation failures (400, 415) become problems; anything else from the validator is ours to fix. */
export function fromValidatorError(error: ValidatorError, expectedMediaType: string): AppError {
  if (error.status === 415) return unsupportedMediaType(expectedMediaType);
  if (error.status === 400) {
    const issues = (error.errors ?? []).map(toIssue);
    const plural = issues.length === 1 ? '1 invalid value' : `${issues.length} invalid values`;
    return badRequest('invalid_parameters', `The request has ${plural}; see details.errors.`, issues);
  }
  return internalError();
}
