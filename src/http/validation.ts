/**
 * express-openapi-validator, configured from the contract, and the translation of its errors into
 * problem responses with one `details.errors` entry per issue (location, JSON Pointer, code).
 */

import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { ValidationIssue } from '../contract.js';
import { type AppError, badRequest, internalError, unsupportedMediaType } from '../domain/errors.js';
import { jsonPointer } from '../domain/validation-issue.js';
import { type NumericParameter, type OpenApiDocument, structuredMediaTypes } from './contract-document.js';
import { stateOf } from './locals.js';
import { rememberValidatedReads } from './validated-responses.js';
import { withoutRepeatedRouting } from './validator-stages.js';

/**
 * The validator's stages by document and by whether responses are checked. Preparing the document and compiling
 * its schemas takes the validator a few hundred milliseconds per app, and apps built from one document in one process
 * (the tests build thousands) share the stages: they keep nothing of an app's own, reading the route settings from
 * each request's app.
 */
const validatorsByDocument = new WeakMap<OpenApiDocument, Map<boolean, RequestHandler[]>>();

export function openApiValidator(document: OpenApiDocument, options: { validateResponses: boolean }): RequestHandler[] {
  let byOption = validatorsByDocument.get(document);
  if (!byOption) {
    byOption = new Map();
    validatorsByDocument.set(document, byOption);
  }
  let validator = byOption.get(options.validateResponses);
  if (!validator) {
    validator = buildValidator(document, options);
    byOption.set(options.validateResponses, validator);
  }
  return options.validateResponses ? [...validator, rememberValidatedReads()] : validator;
}

function buildValidator(document: OpenApiDocument, options: { validateResponses: boolean }): RequestHandler[] {
  // The validator finds the base path in `servers`; the published servers are absolute URLs (production,
  // mock), so the server validates against a copy whose only server is its own mount point.
  const apiSpec = forAjvDiscriminators(
    withBodyDiscriminatorsNested(withRawBodiesUnchecked(withoutAnnotations({ ...document, servers: [{ url: '/v1' }] }) as OpenApiDocument)),
  );
  return withoutRepeatedRouting(
    OpenApiValidator.middleware({
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
      // No operation takes a multipart body: without an uploader the validator leaves out its multipart stage.
      fileUploader: false,
      validateFormats: true,
      ajvFormats: { mode: 'full' },
      // Handlers answer dates as ISO strings, never Date objects, so the validator's default date serialisers
      // have nothing to do; left in, they run before the type check on every value a date schema is tried
      // against (every branch of a oneOf), and throw on each number they meet. Naming the formats without a
      // serialiser replaces the defaults; ajv-formats still checks the strings.
      serDes: [{ format: 'date' }, { format: 'date-time' }],
      ignoreUndocumented: true,
    }) as unknown as RequestHandler[],
  );
}

const plainDecimal: Record<NumericParameter['type'], { grammar: RegExp; representable: (value: number) => boolean; words: string }> = {
  integer: { grammar: /^-?[0-9]+$/, representable: Number.isSafeInteger, words: 'an integer' },
  number: { grammar: /^-?[0-9]+(\.[0-9]+)?$/, representable: Number.isFinite, words: 'a number' },
};

/**
 * Numeric query and path parameters must be written as plain decimals. The validator always coerces parameter
 * text with `Number()` semantics (it forces Ajv's `coerceTypes` on for parameters, whatever the options say), so
 * `0x10`, ` 5` and `1e2` would pass as 16, 5 and 100; and `1e309` or `Infinity` become Infinity, which Ajv's
 * `strictNumbers` then treats as "not a number" and skips `minimum`/`maximum` for, so it reached the store.
 * The text is checked first; the issues found wait for the validator's, so the client gets every issue at once
 * (`fromValidatorError` merges them, `rejectImpreciseNumbers` reports them when the validator found nothing).
 */
export function checkPlainNumbers(): RequestHandler {
  return (req, res, next) => {
    const state = stateOf(res);
    const issues: ValidationIssue[] = [];
    for (const parameter of state.operation?.numericParams ?? []) {
      const raw = parameter.in === 'path' ? state.pathParams?.[parameter.name] : (req.query as Record<string, unknown>)[parameter.name];
      // Absent, empty or repeated parameters are the validator's to report.
      if (typeof raw !== 'string' || raw === '') continue;
      const { grammar, representable, words } = plainDecimal[parameter.type];
      if (grammar.test(raw) && representable(Number(raw))) continue;
      issues.push({
        location: parameter.in,
        pointer: `/${parameter.name}`,
        code: 'type',
        message: `must be ${words} in plain decimal digits (no exponent, hexadecimal, spaces or Infinity)`,
      });
    }
    if (issues.length > 0) state.parameterIssues = issues;
    next();
  };
}

/** After the validator passed: the parameter issues it could not see (it had coerced their text). */
export function rejectImpreciseNumbers(): RequestHandler {
  return (_req, res, next) => {
    const issues = stateOf(res).parameterIssues;
    if (issues && issues.length > 0) throw invalidParameters(issues);
    next();
  };
}

const invalidParameters = (issues: ValidationIssue[]): AppError => {
  const plural = issues.length === 1 ? '1 invalid value' : `${issues.length} invalid values`;
  return badRequest('invalid_parameters', `The request has ${plural}; see details.errors.`, issues);
};

/** Keys that only document: no schema keyword reads them, and the validator neither. */
const annotations = new Set(['description', 'summary', 'title', 'example', 'examples', 'externalDocs', 'headers', 'links']);
/**
 * Keys whose value maps names (properties, paths, status codes, media types) to objects: a name there is never an
 * annotation. (`headers` and `links` maps are dropped whole, as annotations.)
 */
const nameMaps = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'paths',
  'webhooks',
  'responses',
  'content',
  'encoding',
  'callbacks',
  'variables',
  'schemas',
  'parameters',
  'requestBodies',
  'securitySchemes',
  'pathItems',
  'scopes',
]);
/** Keys whose value is data, kept exactly as written (a default is written into request bodies). */
const literals = new Set(['default', 'const', 'enum']);

/**
 * A copy of the document without what only documents it: descriptions, examples, code samples and the other `x-`
 * extensions (the validator's own `x-eov-` ones are kept). Ajv walks the whole document each time it is added to
 * one of the validator's Ajv instances (once per instance, with the patched validator: see
 * docs/internals/patched-dependencies.md): the annotations were most of the document's size, and most of that
 * walking.
 */
function withoutAnnotations(node: unknown, namesHere = false): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutAnnotations(item));
  if (node === null || typeof node !== 'object') return node;
  const kept: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(node)) {
    if (namesHere) kept.push([key, withoutAnnotations(value)]);
    else if (annotations.has(key) || (key.startsWith('x-') && !key.startsWith('x-eov-'))) continue;
    else if (literals.has(key)) kept.push([key, structuredClone(value)]);
    else kept.push([key, withoutAnnotations(value, nameMaps.has(key))]);
  }
  // Built from entries, so a member named `__proto__` stays a member rather than setting the copy's prototype.
  return Object.fromEntries(kept);
}

/**
 * A body taken as bytes (an uploaded image) is a `RawBody` by the time the validator runs, not the string its schema
 * describes: the body parser applied its `maxLength` and matched its media type, and what the bytes are is the
 * domain's to check. The validator passes over a `format: binary` body, and still refuses a media type the operation
 * does not list.
 */
function withRawBodiesUnchecked<T extends OpenApiDocument>(document: T): T {
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

/**
 * Prepares every discriminated `oneOf` for Ajv. Ajv reads the branch from each branch's `const` and rejects
 * `mapping`, which is for documentation readers. And with `discriminator: true` Ajv no longer evaluates the
 * `oneOf` itself, while its `discriminator` keyword applies to objects only: a union without `type: object`
 * let an array or a string through unvalidated (an `attachment` of `[{"type":"workspace"}]` reached the
 * store). Every branch of a discriminated union is an object, so the union is one too.
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

/** What a key of an object must be, by the keyword the validator names: the test one key fails. */
const keyChecks: Record<string, (message: string) => ((key: string) => boolean) | undefined> = {
  max_length: (message) => {
    const limit = /more than (\d+) characters/.exec(message)?.[1];
    return limit === undefined ? undefined : (key) => [...key].length > Number(limit);
  },
  min_length: (message) => {
    const limit = /fewer than (\d+) characters/.exec(message)?.[1];
    return limit === undefined ? undefined : (key) => [...key].length < Number(limit);
  },
  pattern: (message) => {
    const pattern = /must match pattern "(.*)"$/.exec(message)?.[1];
    return pattern === undefined ? undefined : (key) => !new RegExp(pattern, 'u').test(key);
  },
};

/**
 * The validator reports a bad key of an object (`propertyNames`: a `metadata` key too long, say) at the object, not
 * at the key, and without naming it. A string keyword (maxLength, pattern…) at a pointer that is an object in the
 * body can only be about its keys: such an issue becomes one issue per offending key, pointing at the key, and the
 * validator's generic `property_names` issue beside it is dropped.
 */
export function locateKeyIssues(issues: readonly ValidationIssue[], body: unknown): ValidationIssue[] {
  const located: ValidationIssue[] = [];
  const resolved = new Set<string>();
  for (const issue of issues) {
    const target = issue.location === 'body' ? valueAt(body, issue.pointer) : undefined;
    const check = keyChecks[issue.code]?.(issue.message);
    if (typeof target !== 'object' || target === null || Array.isArray(target) || check === undefined) {
      located.push(issue);
      continue;
    }
    const keys = Object.keys(target).filter(check);
    if (keys.length === 0) {
      located.push(issue);
      continue;
    }
    resolved.add(issue.pointer);
    for (const key of keys) located.push({ ...issue, pointer: `${issue.pointer}${jsonPointer(key)}`.slice(0, 512) });
  }
  return located.filter((issue) => !(issue.code === 'property_names' && resolved.has(issue.pointer)));
}

/**
 * A nullable member is written `oneOf: [<schema>, {type: 'null'}]`, and the validator reports a value that fails it
 * once per branch: what is wrong with the value, and also "must be null" and "must match exactly one schema in oneOf".
 * For a value that is not null those two only mislead (a client reading "must be null" under a screen's switch would
 * turn the screen off): a null branch's issue is dropped where the value is not null, and a `one_of` issue where a
 * more precise issue names the same value or one inside it. A `one_of` alone (a value two branches accept) stays.
 */
export function withoutNullBranches(issues: readonly ValidationIssue[], body: unknown): ValidationIssue[] {
  const notNullBranch = (issue: ValidationIssue) =>
    !(issue.location === 'body' && issue.code === 'type' && issue.message === 'must be null' && valueAt(body, issue.pointer) !== null);
  const kept = issues.filter(notNullBranch);
  const isPrecise = (issue: ValidationIssue) => issue.code !== 'one_of';
  return kept.filter(
    (issue) =>
      isPrecise(issue) ||
      !kept.some(
        (other) =>
          isPrecise(other) &&
          other.location === issue.location &&
          (other.pointer === issue.pointer || other.pointer.startsWith(`${issue.pointer}/`)),
      ),
  );
}

/** The value at a JSON Pointer, or undefined. */
function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const segment of pointer.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

/** Request validation failures (400, 415) become problems; anything else from the validator is ours to fix. */
export function fromValidatorError(
  error: ValidatorError,
  expectedMediaType: string,
  earlier: readonly ValidationIssue[] = [],
  body?: unknown,
): AppError {
  if (error.status === 415) return unsupportedMediaType(expectedMediaType);
  if (error.status === 400) {
    const issues = withoutNullBranches(locateKeyIssues((error.errors ?? []).map(toIssue), body), body);
    const seen = new Set(earlier.map((issue) => `${issue.location} ${issue.pointer}`));
    return invalidParameters([...earlier, ...issues.filter((issue) => !seen.has(`${issue.location} ${issue.pointer}`))]);
  }
  return internalError();
}
