// One operation as its code samples call it: the request built from the operation's own examples, and what a careful
// caller does around it. Both languages render the same request, so they cannot tell different stories.
import {
  answersJson,
  declaresHeader,
  deref,
  entityTagSource,
  fileBody,
  isList,
  type Json,
  type Operation,
  parameterExample,
  parametersOf,
  requestExample,
  withDefaults,
} from './document.js';

/** The environment variables every sample reads: the key, and the base URL (production when unset). */
export const KEY_VARIABLE = 'FORM_FUNNEL_KEY';
export const BASE_URL_VARIABLE = 'FORM_FUNNEL_BASE_URL';
/** The public operations' key: not a secret (it is made to be embedded in a web page), so the samples write it out. */
export const PUBLISHABLE_KEY_EXAMPLE = 'svc_pub_live_4fGh8JkL2mN5bV7cX9zQ1wE3';

export interface SampleRequest {
  method: string;
  /** The path template, e.g. `/forms/{id}`. */
  pathName: string;
  pathParams: Record<string, unknown>;
  /** The required query parameters, and for a list `limit` at its maximum (fewer pages to the end). */
  query: Record<string, unknown>;
  body?: { mediaType: string; value: unknown; withDefaults: unknown };
  /** A body sent as a file (a logo), read from `fileName` in the current directory. */
  file?: { mediaType: string; fileName: string };
  authenticated: boolean;
  /** A public operation, called with a publishable key (`publishableKey` scheme) instead of a secret key. */
  publishable: boolean;
  /** The operation takes an `Idempotency-Key`: the samples send one. */
  idempotencyKey: boolean;
  /** The operation takes `If-Match`: the samples first read this path (itself or an ancestor) for its `ETag`. */
  entityTagFrom?: string;
  /** A list: the samples follow `has_more` to the last page. */
  list: boolean;
  /** The success answer is JSON (not an NDJSON or CSV download). */
  json: boolean;
}

export function sampleRequest(document: Json, pathName: string, method: string, pathItem: Json, operation: Operation): SampleRequest {
  const parameters = parametersOf(document, pathItem, operation);
  const pathParams = Object.fromEntries(parameters.filter((p) => p.in === 'path').map((p) => [p.name, parameterExample(document, p)]));
  const list = method === 'get' && isList(document, operation);
  const query = Object.fromEntries(
    parameters.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, parameterExample(document, p)]),
  );
  const limit = parameters.find((p) => p.in === 'query' && p.name === 'limit');
  const maximum = limit?.schema ? largestLimit(document, limit.schema) : undefined;
  if (list && maximum !== undefined) query.limit = maximum;
  const example = requestExample(document, operation);
  const entityTagFrom = declaresHeader(parameters, 'If-Match') ? entityTagSource(document, pathName) : undefined;
  const file = fileBody(document, pathName, operation);
  return {
    method,
    pathName,
    pathParams,
    query,
    ...(example && {
      body: { mediaType: example.mediaType, value: example.value, withDefaults: withDefaults(document, example.schema, example.value) },
    }),
    ...(file && { file }),
    authenticated: !(Array.isArray(operation.security) && operation.security.length === 0),
    publishable: ((operation.security ?? []) as Json[]).some((requirement) => 'publishableKey' in requirement),
    idempotencyKey: declaresHeader(parameters, 'Idempotency-Key'),
    ...(entityTagFrom && { entityTagFrom }),
    list,
    json: answersJson(document, operation),
  };
}

/** The largest page a list allows (`limit`'s `maximum`). */
function largestLimit(document: Json, schemaNode: Json): number | undefined {
  let schema: Json | undefined = deref<Json>(document, schemaNode);
  while (schema) {
    if (typeof schema.maximum === 'number') return schema.maximum;
    const next: Json | undefined = (schema.allOf as Json[] | undefined)?.[0];
    schema = next ? deref<Json>(document, next) : undefined;
  }
  return undefined;
}

/**
 * A path with its parameters filled in, each percent-encoded, `!'()*` too: the result is safe inside a shell's double
 * quotes as well as in a URL.
 */
export function concretePath(pathName: string, pathParams: Record<string, unknown>): string {
  return pathName.replace(/\{([^}]+)\}/g, (_, name: string) => urlSafe(String(pathParams[name])));
}

const urlSafe = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

/** The query as `application/x-www-form-urlencoded` (also how a form-encoded body is written). */
export const formEncoded = (values: Record<string, unknown>): string =>
  new URLSearchParams(Object.entries(values).map(([name, value]): [string, string] => [name, String(value)]))
    .toString()
    .replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

/** The name of one item of a list, from its path: `form` for `/forms`, `apiKey` for `/api_keys`, `log` for `…/logs`. */
export function itemName(pathName: string): string {
  const collection =
    pathName
      .split('/')
      .filter((segment) => segment !== '' && !segment.startsWith('{'))
      .at(-1) ?? 'item';
  const singular = collection.endsWith('s') ? collection.slice(0, -1) : collection;
  return singular.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
