// What a code sample reads from the bundled document: references, examples, the production URL, and what an
// operation asks of a careful caller (an `Idempotency-Key`, an `If-Match` from a read, paging to the end).

export type Json = Record<string, unknown>;
export interface CodeSample {
  lang: 'Shell' | 'TypeScript';
  label: string;
  source: string;
}
export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: Json;
}
type MediaTypes = Record<string, { schema?: Json; examples?: Record<string, unknown>; example?: unknown }>;
export interface Operation {
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content: MediaTypes } | { $ref: string };
  responses?: Record<string, { headers?: Record<string, unknown>; content?: MediaTypes } | { $ref: string }>;
  security?: unknown[];
  'x-codeSamples'?: unknown[];
}

export function deref<T>(document: Json, node: T | { $ref: string }): T {
  let current: unknown = node;
  while (typeof current === 'object' && current !== null && '$ref' in current) {
    const pointer = (current as { $ref: string }).$ref;
    current = pointer
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((parent, key) => (parent as Json)[key], document);
  }
  return current as T;
}

/** The first example of a parameter: its own, else its schema's (following `$ref`s). */
export function parameterExample(document: Json, parameter: Parameter): unknown {
  if (parameter.example !== undefined) return parameter.example;
  let schema = parameter.schema ? deref<Json>(document, parameter.schema) : undefined;
  while (schema) {
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
    if (schema.default !== undefined) return schema.default;
    const next = (schema.allOf as Json[] | undefined)?.[0];
    schema = next ? deref<Json>(document, next) : undefined;
  }
  throw new Error(`parameter ${parameter.name} has no example to build a code sample from`);
}

/** The production base URL: the first server with its variables' defaults. */
export function productionUrl(document: Json): string {
  const [server] = document.servers as Array<{ url: string; variables?: Record<string, { default: string }> }>;
  return server!.url.replace(/\{([^}]+)\}/g, (_, name: string) => server!.variables?.[name]?.default ?? name);
}

/** The parameters of an operation, its path item's first, with references resolved. */
export function parametersOf(document: Json, pathItem: Json, operation: Operation): Parameter[] {
  return [...((pathItem.parameters as Operation['parameters']) ?? []), ...(operation.parameters ?? [])].map((parameter) =>
    deref<Parameter>(document, parameter),
  );
}

export const declaresHeader = (parameters: Parameter[], name: string): boolean =>
  parameters.some((parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === name.toLowerCase());

/** The extension of a file sent as a body, by its media type: what a sample names the file it uploads. */
const fileExtensions: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/**
 * A body sent as a file (a logo): the first media type the operation takes it in, and the file a sample uploads, named
 * after the path's last segment (`logo.png` for `/forms/{id}/logo`). Undefined for JSON and form bodies.
 */
export function fileBody(document: Json, pathName: string, operation: Operation): { mediaType: string; fileName: string } | undefined {
  if (!operation.requestBody) return undefined;
  const [mediaType] = Object.keys(deref(document, operation.requestBody).content);
  if (mediaType === undefined || mediaType === 'application/json' || mediaType === 'application/x-www-form-urlencoded') return undefined;
  const extension = fileExtensions[mediaType];
  if (extension === undefined) throw new Error(`${pathName}: no code sample names a file of ${mediaType}`);
  return { mediaType, fileName: `${pathName.split('/').at(-1)}.${extension}` };
}

/** The first request example of a body (its `value`), with the media type it is sent in. */
export function requestExample(document: Json, operation: Operation): { mediaType: string; schema?: Json; value: unknown } | undefined {
  if (!operation.requestBody) return undefined;
  const [mediaType, media] = Object.entries(deref(document, operation.requestBody).content)[0] ?? [];
  if (!mediaType || !media) return undefined;
  const first = media.examples ? Object.values(media.examples)[0] : undefined;
  const value = first === undefined ? media.example : deref<{ value: unknown }>(document, first as { $ref: string }).value;
  return value === undefined ? undefined : { mediaType, ...(media.schema && { schema: media.schema }), value };
}

function successResponse(document: Json, operation: Operation): { headers?: Record<string, unknown>; content?: MediaTypes } | undefined {
  const status = Object.keys(operation.responses ?? {}).find((code) => code.startsWith('2'));
  return status === undefined ? undefined : deref(document, operation.responses![status]!);
}

/** The property names of a schema, its `allOf` members' included. */
function propertyNames(document: Json, schemaNode: Json): string[] {
  const schema = deref<Json>(document, schemaNode);
  const own = Object.keys((schema.properties as Json | undefined) ?? {});
  return [...own, ...((schema.allOf as Json[] | undefined) ?? []).flatMap((member) => propertyNames(document, member))];
}

/** Whether the operation answers with the list envelope (`data`, `has_more`): one page of many. */
export function isList(document: Json, operation: Operation): boolean {
  const schema = successResponse(document, operation)?.content?.['application/json']?.schema;
  return schema !== undefined && propertyNames(document, schema).includes('has_more');
}

/** Whether the success answer is JSON (an export streams NDJSON or CSV instead). */
export function answersJson(document: Json, operation: Operation): boolean {
  const content = successResponse(document, operation)?.content;
  return content === undefined || 'application/json' in content;
}

/**
 * The path whose GET tells the `ETag` an `If-Match` on `pathName` is compared with: the path itself, or the nearest
 * ancestor (`/forms/{id}` for `/forms/{id}/versions/{version}/restore`) whose GET answers with an `ETag` header.
 */
export function entityTagSource(document: Json, pathName: string): string | undefined {
  const paths = document.paths as Record<string, Json>;
  const segments = pathName.split('/');
  for (let length = segments.length; length > 1; length--) {
    const candidate = segments.slice(0, length).join('/');
    const read = paths[candidate]?.get as Operation | undefined;
    const headers = read ? successResponse(document, read)?.headers : undefined;
    if (headers && Object.keys(headers).some((name) => name.toLowerCase() === 'etag')) return candidate;
  }
  return undefined;
}

/**
 * The body with every omitted property that has a `default` spelled out. The generated types make a property with a
 * default required (openapi-typescript's `defaultNonNullable`, for shared schemas too), so a typed-client sample
 * compiles only with them; curl keeps the example as it is.
 */
export function withDefaults(document: Json, schemaNode: unknown, value: unknown): unknown {
  if (schemaNode === undefined) return value;
  const schema = deref<Json>(document, schemaNode as Json);
  let result = value;
  for (const member of (schema.allOf as Json[] | undefined) ?? []) result = withDefaults(document, member, result);
  const alternatives = [...((schema.oneOf as Json[] | undefined) ?? []), ...((schema.anyOf as Json[] | undefined) ?? [])];
  const chosen = alternatives.find((member) => matchesConstants(document, member, result));
  if (chosen) result = withDefaults(document, chosen, result);
  if (Array.isArray(result) && schema.items) return result.map((item) => withDefaults(document, schema.items, item));
  if (typeof result !== 'object' || result === null || Array.isArray(result) || !schema.properties) return result;
  const filled: Json = { ...(result as Json) };
  for (const [name, property] of Object.entries(schema.properties as Json)) {
    // In 3.1 a `default` may sit beside a `$ref`.
    const fallback = (property as Json).default ?? deref<Json>(document, property as Json).default;
    if (filled[name] === undefined && fallback !== undefined) filled[name] = fallback;
    if (filled[name] !== undefined) filled[name] = withDefaults(document, property, filled[name]);
  }
  return filled;
}

/** Whether a value agrees with a schema's `const` properties (how a `oneOf` member is told apart, e.g. by `type`). */
function matchesConstants(document: Json, schemaNode: Json, value: unknown): boolean {
  const schema = deref<Json>(document, schemaNode);
  if (typeof value !== 'object' || value === null) return false;
  const properties = Object.entries((schema.properties as Json | undefined) ?? {});
  const constants = properties.filter(([, property]) => deref<Json>(document, property as Json).const !== undefined);
  const own = constants.every(([name, property]) => (value as Json)[name] === deref<Json>(document, property as Json).const);
  const inherited = ((schema.allOf as Json[] | undefined) ?? []).every((member) => matchesConstants(document, member, value));
  return own && inherited && (constants.length > 0 || (schema.allOf as Json[] | undefined) !== undefined);
}
