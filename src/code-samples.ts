// Redoc's `x-codeSamples` for every operation of the bundled document: a curl command and a typed-client call,
// both built from the operation's own examples (path parameters from their schemas' examples, the body from the
// first request example), so the samples change when the contract does and are never written by hand. The bundle
// step (src/cli/code-samples.ts) and the server's in-process bundle both add them, so the two documents agree.

type Json = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: Json;
}
interface Operation {
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content: Record<string, { schema?: Json; examples?: Record<string, unknown>; example?: unknown }> } | { $ref: string };
  security?: unknown[];
  'x-codeSamples'?: CodeSample[];
}
export interface CodeSample {
  lang: 'Shell' | 'TypeScript';
  label: string;
  source: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** The environment variable the samples read the key from, as in the partner guides (openapi/guides/). */
const KEY_VARIABLE = 'FORM_FUNNEL_KEY';

function deref<T>(document: Json, node: T | { $ref: string }): T {
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
function parameterExample(document: Json, parameter: Parameter): unknown {
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
function productionUrl(document: Json): string {
  const [server] = document.servers as Array<{ url: string; variables?: Record<string, { default: string }> }>;
  return server!.url.replace(/\{([^}]+)\}/g, (_, name: string) => server!.variables?.[name]?.default ?? name);
}

/** A value as a TypeScript literal, formatted as the project's code is (identifier keys, single quotes, 2 spaces). */
function tsLiteral(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${inner}${tsLiteral(item, inner)},`).join('\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name.replaceAll("'", "\\'")}'`);
    return `{\n${entries.map(([name, item]) => `${inner}${key(name)}: ${tsLiteral(item, inner)},`).join('\n')}\n${indent}}`;
  }
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  return JSON.stringify(value);
}

/**
 * The body with every omitted property that has a `default` spelled out. The generated types make a property with a
 * default required (openapi-typescript's `defaultNonNullable`, for shared schemas too), so a typed-client sample
 * compiles only with them; curl keeps the example as it is.
 */
function withDefaults(document: Json, schemaNode: unknown, value: unknown): unknown {
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

const formEncoded = (values: Json): string =>
  new URLSearchParams(Object.entries(values).map(([name, value]): [string, string] => [name, String(value)])).toString();

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

export function codeSamples(document: Json, pathName: string, method: string, pathItem: Json, operation: Operation): CodeSample[] {
  const parameters = [...((pathItem.parameters as Operation['parameters']) ?? []), ...(operation.parameters ?? [])].map((p) =>
    deref<Parameter>(document, p),
  );
  const pathParams = Object.fromEntries(parameters.filter((p) => p.in === 'path').map((p) => [p.name, parameterExample(document, p)]));
  const query = Object.fromEntries(
    parameters.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, parameterExample(document, p)]),
  );
  const [mediaType, media] = operation.requestBody
    ? (Object.entries(deref(document, operation.requestBody).content)[0] ?? [])
    : [undefined, undefined];
  const firstExample = media?.examples ? Object.values(media.examples)[0] : undefined;
  const body = firstExample === undefined ? media?.example : deref<{ value: unknown }>(document, firstExample as { $ref: string }).value;
  const authenticated = !(Array.isArray(operation.security) && operation.security.length === 0);

  const concretePath = pathName.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathParams[name])));
  const queryString = formEncoded(query);
  const curl = [
    `curl -X ${method.toUpperCase()} ${shellQuote(`${productionUrl(document)}${concretePath}${queryString ? `?${queryString}` : ''}`)}`,
  ];
  if (authenticated) curl.push(`-H "Authorization: Bearer $${KEY_VARIABLE}"`);
  if (body !== undefined && mediaType) {
    curl.push(`-H ${shellQuote(`Content-Type: ${mediaType}`)}`);
    const encoded = mediaType === 'application/x-www-form-urlencoded' ? formEncoded(body as Json) : JSON.stringify(body, null, 2);
    curl.push(`-d ${shellQuote(encoded)}`);
  }

  const init: Json = {};
  const params: Json = {};
  if (Object.keys(pathParams).length > 0) params.path = pathParams;
  if (Object.keys(query).length > 0) params.query = query;
  if (Object.keys(params).length > 0) init.params = params;
  if (body !== undefined) init.body = withDefaults(document, media?.schema, body);
  if (mediaType && mediaType !== 'application/json') init.headers = { 'Content-Type': mediaType };
  const args = [`'${pathName}'`, ...(Object.keys(init).length > 0 ? [tsLiteral(init)] : [])].join(', ');
  const typescript = [
    "import { createFormFunnelClient, unwrap } from '@form-funnel/client';",
    '',
    `const client = createFormFunnelClient({ apiKey: process.env.${KEY_VARIABLE}! });`,
    `const result = unwrap(await client.${method.toUpperCase()}(${args}));`,
  ].join('\n');

  return [
    { lang: 'Shell', label: 'curl', source: curl.join(' \\\n  ') },
    { lang: 'TypeScript', label: 'TypeScript client', source: typescript },
  ];
}

export function withCodeSamples(document: Json): Json {
  const result = structuredClone(document);
  for (const [pathName, pathItem] of Object.entries(result.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = pathItem[method] as Operation | undefined;
      if (operation) operation['x-codeSamples'] = codeSamples(result, pathName, method, pathItem, operation);
    }
  }
  return result;
}
