/**
 * Read access to the bundled document (dist/openapi.json, written by the vitest global setup): its operations,
 * their documented statuses and the examples of requests, responses and schemas. The contract tests take
 * every expected value from here, so they cannot drift from the document.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../../..');
export const bundledJsonPath = path.join(root, 'dist/openapi.json');

type Json = Record<string, unknown>;
interface Example {
  value?: unknown;
}
interface MediaType {
  schema?: Json;
  examples?: Record<string, Example | { $ref: string }>;
}
interface ResponseObject {
  headers?: Record<string, unknown>;
  content?: Record<string, MediaType>;
}
export interface Operation {
  operationId: string;
  method: string;
  path: string;
  responses: Record<string, ResponseObject | { $ref: string }>;
  requestBody?: { content: Record<string, MediaType> } | { $ref: string };
  parameters?: Array<{ name: string; in: string } | { $ref: string }>;
}
export interface OpenApiDocument {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, Record<string, unknown>>;
  components: Json & { schemas: Record<string, Json> };
}

export const document = JSON.parse(readFileSync(bundledJsonPath, 'utf8')) as OpenApiDocument;

const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Follows local `$ref`s (`#/components/...`) until a node that is not a reference. */
export function deref<T>(node: T | { $ref: string }): T {
  let current: unknown = node;
  while (typeof current === 'object' && current !== null && '$ref' in current) {
    const pointer = (current as { $ref: string }).$ref;
    if (!pointer.startsWith('#/')) throw new Error(`Only local references are expected in the bundle: ${pointer}`);
    current = pointer
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((parent, key) => (parent as Json | undefined)?.[key], document);
    if (current === undefined) throw new Error(`Unresolvable reference ${pointer}`);
  }
  return current as T;
}

/** Every operation of `paths`, in document order. */
export function documentedOperations(): Operation[] {
  return Object.entries(document.paths).flatMap(([pathName, item]) =>
    httpMethods
      .filter((method) => typeof item[method] === 'object')
      .map((method) => ({ ...(item[method] as Omit<Operation, 'method' | 'path'>), method: method.toUpperCase(), path: pathName })),
  );
}

export function operation(operationId: string): Operation {
  const found = documentedOperations().find((candidate) => candidate.operationId === operationId);
  if (!found) throw new Error(`No operation ${operationId} in the document`);
  return found;
}

/** The single 2xx status an operation documents. */
export function successStatus(operationId: string): number {
  const statuses = Object.keys(operation(operationId).responses).filter((status) => /^2\d\d$/.test(status));
  if (statuses.length !== 1) throw new Error(`${operationId} documents ${statuses.length} success statuses: ${statuses.join(', ')}`);
  return Number(statuses[0]);
}

/** The response an operation documents for a status; throws when that status is not documented. */
export function documentedResponse(operationId: string, status: number): ResponseObject {
  const response = operation(operationId).responses[String(status)];
  if (!response) throw new Error(`${operationId} does not document a ${status} response`);
  return deref(response);
}

/**
 * A media type of a documented response, with its examples (references resolved): the one named, else the first,
 * which is what a client that accepts anything gets (only the export documents more than one).
 */
export function responseContent(
  operationId: string,
  status: number,
  named?: string,
): { mediaType: string; examples: Record<string, unknown> } {
  const content = Object.entries(documentedResponse(operationId, status).content ?? {});
  const found = named === undefined ? content[0] : content.find(([mediaType]) => mediaType === named);
  if (!found) throw new Error(`${operationId} ${status}: no ${named ?? ''} media type`);
  const [mediaType, media] = found;
  return { mediaType, examples: examplesOf(media) };
}

/** A named example of a documented response (the first one when no name is given). */
export function responseExample(operationId: string, status: number, name?: string): { name: string; value: unknown } {
  return pick(responseContent(operationId, status).examples, name, `${operationId} ${status}`);
}

/** A named example of an operation's request body (the first one when no name is given). */
export function requestExample<Body>(operationId: string, name?: string): Body {
  const requestBody = operation(operationId).requestBody;
  if (!requestBody) throw new Error(`${operationId} takes no request body`);
  const media = Object.values(deref(requestBody).content);
  if (media.length !== 1) throw new Error(`${operationId}: expected one request media type, found ${media.length}`);
  return pick(examplesOf(media[0]!), name, `${operationId} request`).value as Body;
}

/** The first `examples` entry of a component schema, e.g. an id of the right shape. */
export function schemaExample<Value>(schemaName: string): Value {
  const examples = document.components.schemas[schemaName]?.examples;
  if (!Array.isArray(examples) || examples.length === 0) throw new Error(`Schema ${schemaName} has no examples`);
  return examples[0] as Value;
}

/** The values of an `examples` map (of a media type or a parameter), references resolved. */
export function examplesOf(holder: { examples?: Record<string, unknown> }): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(holder.examples ?? {}).map(([name, example]) => [name, deref(example as Example | { $ref: string }).value]),
  );
}

function pick(examples: Record<string, unknown>, name: string | undefined, where: string): { name: string; value: unknown } {
  const chosen = name ?? Object.keys(examples)[0];
  if (chosen === undefined || !(chosen in examples)) {
    throw new Error(`${where}: no example ${name ?? '(any)'}; documented: ${Object.keys(examples).join(', ') || 'none'}`);
  }
  return { name: chosen, value: examples[chosen] };
}
