/**
 * The bundled OpenAPI document (`npm run bundle` writes dist/openapi.json) and what the server reads from
 * it: every operation with its method, path and minimum scope. The scope is the role listed in the
 * operation's security requirement, so the document, not this code, decides who may call what.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Operation as DocumentOperation, deref, type Json, requestExample } from '../code-samples/document.js';
import { withCodeSamples } from '../code-samples.js';
import type { Schema, Scope } from '../contract.js';
import { maxBodyBytes } from './documented-limits.js';
import type { OperationId } from './handlers/types.js';

type EventType = Schema<'EventType'>;

export const bundledDocumentPath = fileURLToPath(new URL('../../dist/openapi.json', import.meta.url));
const redoclyConfigPath = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));
const documentRootPath = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));

export type OpenApiDocument = {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, { enum?: string[] }> };
  [key: string]: unknown;
};

export interface Operation {
  operationId: OperationId;
  method: 'get' | 'post' | 'patch' | 'delete' | 'put';
  /** The OpenAPI path template, e.g. `/forms/{id}`. */
  path: string;
  pattern: RegExp;
  /** The path parameters' names, in the order `pattern` captures them. */
  pathParamNames: readonly string[];
  /** `null`: any valid key (GET /me); `undefined` is never used, an operation without roles is public. */
  minScope: Scope | null;
  /** False for operations with `security: []` (the OAuth token endpoint). */
  authenticated: boolean;
  /**
   * Whether the security requirement lists an OAuth 2.0 scheme: an access token calling an operation that does not
   * is refused (403 `api_key_required`), so the document is the one place that says which credentials an operation
   * takes.
   */
  acceptsOAuthTokens: boolean;
  /**
   * Whether the operation takes a publishable key (the `publishableKey` scheme: the public operations) instead of a
   * secret key or OAuth token. Each refuses the other's credentials.
   */
  publishable: boolean;
  /**
   * The media types the operation's request body may be sent in, as its `requestBody` lists them; empty when it takes
   * no body. One structured type (`application/json`, or form fields for the OAuth token endpoint), or one or more
   * types of a body taken as bytes (a logo's `image/png`, `image/jpeg`, `image/webp`: `rawBody`).
   */
  requestMediaTypes: readonly string[];
  /** Whether the body is taken as the bytes sent (an uploaded file) rather than parsed as JSON or form fields. */
  rawBody: boolean;
  /** The largest body taken: the body schema's `maxLength` for bytes, the 1 MiB of `PayloadTooLarge` otherwise. */
  maxBodyBytes: number;
  /**
   * Whether an `Idempotency-Key` makes the request replayable: every POST (the key is accepted on all of them), and
   * the other operations that declare the header (a PATCH whose retry would otherwise meet a changed resource).
   */
  acceptsIdempotencyKey: boolean;
  /** Path parameters whose schema is an integer (a version number): they arrive as text and are passed on as numbers. */
  integerPathParams: ReadonlySet<string>;
  /** Query and path parameters whose schema is a number or an integer: their text must be plain decimal. */
  numericParams: readonly NumericParameter[];
  /**
   * No body, no cookie parameters and no header parameters but `verdictHeaders`: what the validator reads of a
   * request is its URL (the path and the query string) and the values of those headers, and that is all.
   */
  takesOnlyUrlParameters: boolean;
  /**
   * The header parameters (lower case) of an operation that takes only URL parameters otherwise: `If-None-Match`
   * on a read, whose syntax the validator checks, so a remembered verdict is per value of the header as well.
   */
  verdictHeaders: readonly string[];
  /** Whether it declares query parameters (which the validator coerces, and fills in with their defaults). */
  takesQueryParameters: boolean;
  /**
   * The property of a success body that holds the id of the submission the operation answers with (its schema is
   * `SubmissionId`), whatever the body's representation; null when no success body carries one. A response stored
   * for an Idempotency-Key replay is linked to that submission and forgotten with it (dispatch.ts).
   */
  submissionIdProperty: string | null;
}

export interface NumericParameter {
  name: string;
  in: 'query' | 'path';
  type: 'integer' | 'number';
}

export interface Contract {
  document: OpenApiDocument;
  operations: Operation[];
  /** Scopes in ascending power, as the `Scope` enum of the document lists them. */
  scopeOrder: readonly Scope[];
  /** Each event type's `data`, from the first example of its webhook: what a synthetic sample of the type carries. */
  eventSamples: ReadonlyMap<EventType, Record<string, unknown>>;
}

const methods = ['get', 'post', 'patch', 'delete', 'put'] as const;

export function loadContract(path = bundledDocumentPath): Contract {
  if (!existsSync(path)) {
    throw new Error(`The bundled OpenAPI document is missing (${path}). Run \`npm run bundle\` first.`);
  }
  return contractOf(JSON.parse(readFileSync(path, 'utf8')) as OpenApiDocument);
}

/**
 * For a server process: the bundle when `npm run bundle` (or `npm start`) has written it, otherwise the split
 * files of openapi/ bundled in process with the library the Redocly CLI uses, so a fresh checkout starts too.
 */
export async function loadOrBundleContract(path = bundledDocumentPath): Promise<Contract> {
  if (existsSync(path)) return loadContract(path);
  return contractOf(await bundleDocumentRoot());
}

async function bundleDocumentRoot(): Promise<OpenApiDocument> {
  let redocly: typeof import('@redocly/openapi-core');
  try {
    redocly = await import('@redocly/openapi-core');
  } catch {
    throw new Error(`${bundledDocumentPath} is missing and cannot be built here: run \`npm run bundle\` first.`);
  }
  const config = await redocly.loadConfig({ configPath: redoclyConfigPath });
  const { bundle } = await redocly.bundle({ ref: documentRootPath, config });
  return withCodeSamples(bundle.parsed as Record<string, unknown>) as unknown as OpenApiDocument;
}

/** What the server reads from a bundled document (`loadContract` reads it from a file). */
export function contractOf(document: OpenApiDocument): Contract {
  return { document, operations: readOperations(document), scopeOrder: readScopeOrder(document), eventSamples: readEventSamples(document) };
}

/**
 * The `data` of the first example of every webhook, by event type (a webhook is named by its type). The document
 * decides what a sample looks like, so a sample always has the shape its webhook declares; an event type without
 * a webhook example is an error at start, not at the first dispatch of that type.
 */
function readEventSamples(document: OpenApiDocument): Map<EventType, Record<string, unknown>> {
  const webhooks = (document.webhooks ?? {}) as Record<string, { post?: unknown }>;
  const samples = new Map<EventType, Record<string, unknown>>();
  for (const [type, item] of Object.entries(webhooks)) {
    const post = deref<DocumentOperation>(document, resolve(document, item).post as DocumentOperation);
    const value = requestExample(document, post)?.value as { data?: Record<string, unknown> } | undefined;
    if (value?.data === undefined) throw new Error(`The ${type} webhook has no example with \`data\`.`);
    samples.set(type as EventType, value.data);
  }
  for (const type of document.components.schemas.EventType?.enum ?? []) {
    if (!samples.has(type as EventType)) throw new Error(`The event type ${type} has no webhook with an example.`);
  }
  return samples;
}

function readScopeOrder(document: OpenApiDocument): Scope[] {
  const scopes = document.components.schemas.Scope?.enum;
  if (!scopes || scopes.length === 0) throw new Error('The document has no Scope enum.');
  return scopes as Scope[];
}

/** Headers a read's answer depends on without changing anything: a URL's verdict may be remembered per value. */
const conditionalReadHeaders = new Set(['if-none-match']);

function readOperations(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  const schemes = ((document.components as Record<string, unknown>).securitySchemes ?? {}) as Record<string, unknown>;
  const oauthSchemes = new Set(Object.keys(schemes).filter((name) => resolve(document, schemes[name]).type === 'oauth2'));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of methods) {
      const operation = item[method] as
        | {
            operationId: OperationId;
            security?: Array<Record<string, string[]>>;
            requestBody?: { content?: Record<string, unknown> };
            parameters?: unknown[];
            responses?: Record<string, unknown>;
          }
        | undefined;
      if (!operation) continue;
      // Updates are PATCH and a PUT of a resource gets 405; PUT only uploads a whole file (a form's logo), never JSON.
      if (
        method === 'put' &&
        Object.keys(operation.requestBody?.content ?? { 'application/json': {} }).some((type) => type.endsWith('json'))
      ) {
        throw new Error(`${path}: PUT is not used by this API for JSON: updates are PATCH, and a PUT gets 405.`);
      }
      const security = operation.security ?? (document.security as Array<Record<string, string[]>>);
      const parameters = [...((item.parameters as unknown[]) ?? []), ...(operation.parameters ?? [])];
      const places = parameters.map((parameter) => resolve(document, parameter).in);
      const headers = parameters
        .map((parameter) => resolve(document, parameter))
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => String(parameter.name).toLowerCase());
      operations.push({
        operationId: operation.operationId,
        method,
        path,
        pattern: pathPattern(path),
        pathParamNames: [...path.matchAll(/\{([^}]+)\}/g)].map((found) => found[1]!),
        minScope: minimumScope(operation.operationId, security),
        authenticated: security.length > 0,
        acceptsOAuthTokens: security.some((requirement) => Object.keys(requirement).some((scheme) => oauthSchemes.has(scheme))),
        publishable: takesPublishableKey(operation.operationId, security),
        ...requestBodyOf(document, path, operation.requestBody),
        acceptsIdempotencyKey: method === 'post' || declaresHeader(document, parameters, 'idempotency-key'),
        integerPathParams: integerPathParams(document, parameters),
        numericParams: numericParams(document, parameters),
        takesOnlyUrlParameters:
          operation.requestBody === undefined &&
          places.every((place) => place !== 'cookie') &&
          headers.every((header) => conditionalReadHeaders.has(header)),
        verdictHeaders: headers,
        takesQueryParameters: places.includes('query'),
        submissionIdProperty: linkedSubmissionId(
          document,
          operation.operationId,
          method === 'post' || declaresHeader(document, parameters, 'idempotency-key'),
          operation.responses,
        ),
      });
    }
  }
  return operations;
}

/**
 * The pattern a path template matches: each `{name}` one non-empty segment, every other character itself (a `.` in a
 * literal is a dot, never any character, so a pattern matches only paths with as many segments as its template).
 */
export function pathPattern(template: string): RegExp {
  const parts = template
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('')}$`);
}

/** Follows a local `$ref` (`#/components/...`) of the bundled document. */
export const resolve = (document: OpenApiDocument, node: unknown): Record<string, unknown> => deref<Json>(document, node as Json);

/** The media types whose bodies are parsed into values (request-body.ts); any other is taken as bytes. */
export const structuredMediaTypes: ReadonlySet<string> = new Set(['application/json', 'application/x-www-form-urlencoded']);

/**
 * What the body parser needs of an operation's `requestBody`. A structured body has one media type (a second would
 * need the parser and the validator to choose between two shapes); a body taken as bytes may have several, each a
 * string schema whose `maxLength` bounds it in bytes, so the document states the limit the parser applies.
 */
function requestBodyOf(
  document: OpenApiDocument,
  path: string,
  requestBody: unknown,
): Pick<Operation, 'requestMediaTypes' | 'rawBody' | 'maxBodyBytes'> {
  if (requestBody === undefined) return { requestMediaTypes: [], rawBody: false, maxBodyBytes };
  const content = (resolve(document, requestBody).content as Record<string, { schema?: unknown }> | undefined) ?? {};
  const mediaTypes = Object.keys(content);
  if (mediaTypes.length === 0) throw new Error(`${path}: a request body must have a media type.`);
  if (mediaTypes.some((mediaType) => structuredMediaTypes.has(mediaType))) {
    if (mediaTypes.length !== 1) throw new Error(`${path}: a JSON or form body must be the request body's only media type.`);
    return { requestMediaTypes: mediaTypes, rawBody: false, maxBodyBytes };
  }
  const limits = mediaTypes.map((mediaType) => {
    const schema = resolve(document, content[mediaType]!.schema);
    if (schema.type !== 'string' || typeof schema.maxLength !== 'number') {
      throw new Error(`${path}: a ${mediaType} body is taken as bytes: its schema must be a string with a maxLength.`);
    }
    return schema.maxLength;
  });
  if (new Set(limits).size !== 1) throw new Error(`${path}: the media types of a body taken as bytes must have one maxLength.`);
  return { requestMediaTypes: mediaTypes, rawBody: true, maxBodyBytes: limits[0]! };
}

function declaresHeader(document: OpenApiDocument, parameters: unknown[], name: string): boolean {
  return parameters
    .map((entry) => resolve(document, entry))
    .some((parameter) => parameter.in === 'header' && String(parameter.name).toLowerCase() === name);
}

function integerPathParams(document: OpenApiDocument, parameters: unknown[]): Set<string> {
  const names = new Set<string>();
  for (const parameter of parameters.map((entry) => resolve(document, entry))) {
    if (parameter.in === 'path' && resolve(document, parameter.schema).type === 'integer') names.add(parameter.name as string);
  }
  return names;
}

function numericParams(document: OpenApiDocument, parameters: unknown[]): NumericParameter[] {
  return parameters
    .map((entry) => resolve(document, entry))
    .flatMap((parameter) => {
      const type = resolve(document, parameter.schema).type;
      const location = parameter.in;
      return (type === 'integer' || type === 'number') && (location === 'query' || location === 'path')
        ? [{ name: parameter.name as string, in: location, type }]
        : [];
    });
}

const submissionIdSchema = '#/components/schemas/SubmissionId';

/** The JSON body schema of each 2xx response, with its status. */
function successBodies(document: OpenApiDocument, responses: Record<string, unknown> | undefined): Array<[string, unknown]> {
  return Object.entries(responses ?? {}).flatMap(([status, response]): Array<[string, unknown]> => {
    if (!/^2\d\d$/.test(status)) return [];
    const content = resolve(document, response).content as Record<string, { schema?: unknown }> | undefined;
    const schema = content?.['application/json']?.schema;
    return schema === undefined ? [] : [[status, schema]];
  });
}

/**
 * The first property of a 2xx JSON body, of any operation's response, whose schema is the submission id: what a
 * replayable operation's stored response is linked by. A replayable operation whose success body carries the
 * submission id deeper than its top level (in a nested object, a list) is refused when the document loads: a kept
 * response holding a submission must be forgotten with it, and the link reads top-level properties only, so such an
 * operation needs the link taught first, not a response that outlives an erasure unseen.
 */
function linkedSubmissionId(
  document: OpenApiDocument,
  operationId: string,
  replayable: boolean,
  responses: Record<string, unknown> | undefined,
): string | null {
  const bodies = successBodies(document, responses);
  for (const [, schema] of bodies) {
    const property = propertyHolding(document, schema, submissionIdSchema);
    if (property !== null) return property;
  }
  const nested = replayable ? bodies.find(([, schema]) => holdsRef(document, schema, submissionIdSchema, new Set())) : undefined;
  if (nested) {
    throw new Error(
      `${operationId}: its ${nested[0]} body carries a submission id below its top level, where the link of a kept ` +
        'Idempotency-Key response to its submission (submissionIdProperty) does not look.',
    );
  }
  return null;
}

/** Whether `ref` is anywhere in `schema`: its properties, items and composed parts, at any depth. */
function holdsRef(document: OpenApiDocument, schema: unknown, ref: string, seen: Set<unknown>): boolean {
  if (schema === undefined || schema === null || typeof schema !== 'object') return false;
  if ((schema as { $ref?: unknown }).$ref === ref) return true;
  const node = resolve(document, schema);
  if (seen.has(node)) return false;
  seen.add(node);
  const children = [
    ...Object.values((node.properties ?? {}) as Record<string, unknown>),
    node.items,
    node.additionalProperties,
    ...((node.allOf ?? []) as unknown[]),
    ...((node.oneOf ?? []) as unknown[]),
    ...((node.anyOf ?? []) as unknown[]),
  ];
  return children.some((child) => holdsRef(document, child, ref, seen));
}

/**
 * A top-level property of `schema` (its own, or one of its `allOf` parts') whose schema is `ref`, itself or wrapped
 * in an `allOf` (the form a property takes to add its own description).
 */
function propertyHolding(document: OpenApiDocument, schema: unknown, ref: string): string | null {
  const node = resolve(document, schema);
  const isRef = (value: unknown) => (value as { $ref?: unknown } | undefined)?.$ref === ref;
  const properties = (node.properties ?? {}) as Record<string, { $ref?: unknown; allOf?: unknown[] }>;
  for (const [name, property] of Object.entries(properties)) {
    if (isRef(property) || property.allOf?.some(isRef)) return name;
  }
  for (const part of (node.allOf ?? []) as unknown[]) {
    const found = propertyHolding(document, part, ref);
    if (found !== null) return found;
  }
  return null;
}

const publishableScheme = 'publishableKey';

/** An operation takes either publishable keys only or none: the pipeline authenticates one kind per operation. */
function takesPublishableKey(operationId: string, security: Array<Record<string, string[]>>): boolean {
  const schemes = security.flatMap((requirement) => Object.keys(requirement));
  if (!schemes.includes(publishableScheme)) return false;
  if (schemes.some((scheme) => scheme !== publishableScheme)) {
    throw new Error(`${operationId}: the publishableKey scheme cannot be combined with another.`);
  }
  return true;
}

/** Every requirement (API key, OAuth) must name the same role; a disagreement is a document error. */
function minimumScope(operationId: string, security: Array<Record<string, string[]>>): Scope | null {
  const roles = new Set(security.flatMap((requirement) => Object.values(requirement).map((list) => list.join(' '))));
  if (roles.size > 1) throw new Error(`${operationId}: its security requirements name different scopes.`);
  const [role] = roles;
  return role ? (role as Scope) : null;
}

type OperationMatch = { operation: Operation; params: string[] } | { allowed: Array<Uppercase<Operation['method']>> } | undefined;

/**
 * `matchOperation` over only the operations a path could match. A pattern matches only paths with as many segments
 * as its template (`pathPattern`), and one whose first segment is a literal only paths that start with it; so the
 * candidates for each segment count and first segment are listed once, in the document's order, with the
 * operations whose first segment holds a template, which any first segment may match. The answer, 405s included, is
 * the one `matchOperation` gives over every operation. Trying every operation's pattern was the largest share of the
 * pipeline's own time on a read.
 */
export function operationRouter(operations: readonly Operation[]): (method: string, path: string) => OperationMatch {
  const segmentsOf = (operation: Operation) => operation.path.split('/').length - 1;
  const firstOf = (operation: Operation) => operation.path.split('/')[1] ?? '';
  const anyFirst = (operation: Operation) => firstOf(operation).includes('{');
  /** By segment count: the operations whose first segment holds a template. */
  const shared = new Map<number, Operation[]>();
  /** By segment count and first segment: the operations with that literal first segment, and the shared ones. */
  const byFirst = new Map<string, Operation[]>();
  for (const operation of operations) {
    if (anyFirst(operation)) shared.set(segmentsOf(operation), [...(shared.get(segmentsOf(operation)) ?? []), operation]);
  }
  for (const operation of operations) {
    const key = `${segmentsOf(operation)} ${firstOf(operation)}`;
    if (anyFirst(operation) || byFirst.has(key)) continue;
    byFirst.set(
      key,
      operations.filter(
        (candidate) =>
          segmentsOf(candidate) === segmentsOf(operation) && (anyFirst(candidate) || firstOf(candidate) === firstOf(operation)),
      ),
    );
  }
  return (method, path) => {
    const segments = path.split('/');
    const count = segments.length - 1;
    return matchOperation(byFirst.get(`${count} ${segments[1] ?? ''}`) ?? shared.get(count) ?? [], method, path);
  };
}

/** The operation for a path under /v1, or the methods the path has when the method does not match. */
export function matchOperation(operations: readonly Operation[], method: string, path: string): OperationMatch {
  // A literal segment wins over a template, as OpenAPI says: `/submissions/export` is not `/submissions/{id}`. So
  // of the operations whose pattern matches, only those with the fewest templates are candidates.
  let fewest = Number.POSITIVE_INFINITY;
  let candidates: Array<{ operation: Operation; found: RegExpExecArray }> = [];
  for (const operation of operations) {
    const found = operation.pattern.exec(path);
    if (!found) continue;
    const templates = operation.pathParamNames.length;
    if (templates < fewest) {
      fewest = templates;
      candidates = [];
    }
    if (templates === fewest) candidates.push({ operation, found });
  }
  if (candidates.length === 0) return undefined;
  const wanted = method.toLowerCase();
  const chosen = candidates.find((candidate) => candidate.operation.method === wanted);
  if (!chosen)
    return { allowed: candidates.map((candidate) => candidate.operation.method.toUpperCase() as Uppercase<Operation['method']>) };
  const raw = chosen.found.slice(1);
  try {
    return { operation: chosen.operation, params: raw.map(decodeURIComponent) };
  } catch {
    // Malformed percent-encoding cannot name any resource; the raw text fails the parameter's pattern (400).
    return { operation: chosen.operation, params: raw };
  }
}
