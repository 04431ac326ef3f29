/**
 * The bundled contract (openapi/openapi.json) as the server reads it at run time: operations by path and method,
 * their security requirements and documented responses. The types in src/generated/ come from the same file.
 */
import { readFileSync } from 'node:fs';

export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, Record<string, unknown>> } & Record<string, unknown>;
  security?: Array<Record<string, string[]>>;
  [key: string]: unknown;
}

export interface Operation {
  operationId: string;
  method: string;
  /** The path as the document writes it, without the `/v1` base path: `/forms/{id}`. */
  path: string;
  pattern: RegExp;
  security: Array<Record<string, string[]>>;
  responses: Record<string, unknown>;
  requestBody?: { content?: Record<string, unknown>; required?: boolean };
}

export const basePath = '/v1';

/** The media types whose bodies are parsed into values; a body of any other (an uploaded image) is its bytes. */
export const structuredMediaTypes: ReadonlySet<string> = new Set(['application/json', 'application/x-www-form-urlencoded']);

/** The media types an operation takes its body in: one structured type, or the types of a file (a logo's images). */
export const requestMediaTypes = (operation: Operation | undefined): string[] => Object.keys(operation?.requestBody?.content ?? {});
const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function loadDocument(): OpenApiDocument {
  return JSON.parse(readFileSync(new URL('../openapi/openapi.json', import.meta.url), 'utf8')) as OpenApiDocument;
}

/** Follows a local `$ref` (`#/components/...`) to the object it names. */
export function resolve(document: OpenApiDocument, node: unknown): Record<string, unknown> {
  let current = node as Record<string, unknown> | undefined;
  for (let hops = 0; current && typeof current.$ref === 'string' && hops < 20; hops += 1) {
    const names = (current.$ref as string).replace(/^#\//, '').split('/');
    let target: unknown = document;
    for (const name of names) target = (target as Record<string, unknown> | undefined)?.[name.replace(/~1/g, '/').replace(/~0/g, '~')];
    current = target as Record<string, unknown> | undefined;
  }
  return current ?? {};
}

export function readOperations(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of methods) {
      const operation = item[method] as (Omit<Operation, 'method' | 'path' | 'pattern'> & { security?: Operation['security'] }) | undefined;
      if (!operation) continue;
      const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)')}$`);
      operations.push({
        ...operation,
        security: operation.security ?? document.security ?? [],
        method: method.toUpperCase(),
        path,
        pattern,
        responses: operation.responses ?? {},
      });
    }
  }
  // A literal segment wins over a parameter: `/submissions/erase` before `/submissions/{id}`.
  const parameterCount = (operation: Operation) => (operation.path.match(/\{/g) ?? []).length;
  return operations.sort((a, b) => parameterCount(a) - parameterCount(b));
}

export type RouteMatch = { found: Operation } | { allowed: string[] } | undefined;

/** The operation a request names, the methods its path allows when the method is wrong, or nothing. */
export function matchRoute(operations: readonly Operation[], method: string, path: string): RouteMatch {
  const allowed: string[] = [];
  let pathMatched: string | undefined;
  for (const operation of operations) {
    if (!operation.pattern.test(path)) continue;
    // Only operations of the first path that matches: `/submissions/erase` is not also `/submissions/{id}`.
    pathMatched ??= operation.path;
    if (operation.path !== pathMatched) continue;
    if (operation.method === method) return { found: operation };
    allowed.push(operation.method);
  }
  return allowed.length > 0 ? { allowed } : undefined;
}
