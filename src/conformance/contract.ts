/**
 * What the conformance kit reads of the contract: every operation with its documented responses, request
 * examples and parameters, and JSON Schema 2020-12 validation (the dialect of OpenAPI 3.1) of a value against a
 * schema inside the bundled document, addressed by JSON pointer so that `#/components/...` references resolve.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadOrBundleContract, type OpenApiDocument } from '../http/contract-document.js';

// ajv-formats is CommonJS; under NodeNext its default import is typed as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const documentId = 'openapi.json';
const methods = ['get', 'post', 'patch', 'delete', 'put'] as const;

export interface DocumentedResponse {
  /** Header name (lower case) → pointer to its schema. */
  headers: Record<string, string>;
  /** Media type → pointer to its schema (`undefined` when the media type declares none). */
  content: Record<string, string | undefined>;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: { type?: string; examples?: unknown[]; pattern?: string; minimum?: number; maximum?: number };
}

export interface ContractOperation {
  operationId: string;
  method: (typeof methods)[number];
  /** The OpenAPI path template under the server's base URL, e.g. `/forms/{id}`. */
  path: string;
  /** Roles listed for the API key scheme; empty for an operation any valid key may call. */
  scopes: string[];
  /** False for an operation with `security: []`. */
  authenticated: boolean;
  /** True for an operation a publishable key calls (the public operations), which secret keys may not call. */
  publishable: boolean;
  /** Status code (or `4XX`, `default`) → what the document says about it. */
  responses: Record<string, DocumentedResponse>;
  /** The first media type the request body is documented in; `null` when the operation takes no body. */
  requestMediaType: string | null;
  /** Every media type the request body is documented in (a logo's three image types). */
  requestMediaTypes: string[];
  /** The request body's documented examples, by name. */
  requestExamples: Record<string, unknown>;
  parameters: Parameter[];
}

export interface ConformanceContract {
  document: OpenApiDocument;
  operations: ContractOperation[];
  operation(operationId: string): ContractOperation;
  /** ajv's errors for `value` against the schema at `schemaPointer`; empty when it is valid. */
  schemaErrors(schemaPointer: string, value: unknown): ErrorObject[];
}

/** The document at `path`, or the bundle the server reads (built in process from openapi/ when it is missing). */
export async function loadConformanceContract(path?: string): Promise<ConformanceContract> {
  const document = path ? (JSON.parse(readFileSync(path, 'utf8')) as OpenApiDocument) : (await loadOrBundleContract()).document;
  return conformanceContractOf(document);
}

export function conformanceContractOf(document: OpenApiDocument): ConformanceContract {
  // strict: false because OpenAPI adds keywords of its own (discriminator, example, externalDocs, xml).
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, documentId);
  const operations = readOperations(document);
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  return {
    document,
    operations,
    operation: (operationId) => {
      const found = byId.get(operationId);
      if (!found) throw new Error(`The contract has no operation ${operationId}.`);
      return found;
    },
    schemaErrors: (schemaPointer, value) => {
      const validate = ajv.getSchema(`${documentId}${schemaPointer}`);
      if (!validate) throw new Error(`No schema at ${schemaPointer}`);
      return validate(value) ? [] : [...(validate.errors ?? [])];
    },
  };
}

type Node = Record<string, unknown>;

/** `['paths', '/forms', 'get']` → `#/paths/~1forms/get`, escaped as a URI fragment. */
function pointer(segments: readonly string[]): string {
  return `#/${segments.map((segment) => encodeURIComponent(segment.replaceAll('~', '~0').replaceAll('/', '~1'))).join('/')}`;
}

/** Follows `$ref`s from the node at `segments`; returns where the node finally is, and the node. */
function follow(document: OpenApiDocument, segments: readonly string[]): { at: string[]; node: Node } {
  let at = [...segments];
  let node = at.reduce<unknown>((parent, key) => (parent as Node)[key], document) as Node;
  while (typeof node.$ref === 'string') {
    if (!node.$ref.startsWith('#/')) throw new Error(`Not a local reference: ${node.$ref}`);
    at = node.$ref
      .slice(2)
      .split('/')
      .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
    node = at.reduce<unknown>((parent, key) => (parent as Node)[key], document) as Node;
  }
  return { at, node };
}

function readOperations(document: OpenApiDocument): ContractOperation[] {
  const operations: ContractOperation[] = [];
  const defaultSecurity = (document.security as Array<Record<string, string[]>> | undefined) ?? [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of methods) {
      const raw = item[method] as Node | undefined;
      if (!raw) continue;
      const security = (raw.security as Array<Record<string, string[]>> | undefined) ?? defaultSecurity;
      const base = ['paths', path, method];
      const responses: Record<string, DocumentedResponse> = {};
      for (const status of Object.keys(raw.responses as Node)) {
        const { at, node } = follow(document, [...base, 'responses', status]);
        const headers: Record<string, string> = {};
        for (const name of Object.keys((node.headers as Node | undefined) ?? {})) {
          headers[name.toLowerCase()] = pointer([...follow(document, [...at, 'headers', name]).at, 'schema']);
        }
        const content: Record<string, string | undefined> = {};
        for (const [mediaType, media] of Object.entries((node.content as Record<string, Node> | undefined) ?? {})) {
          content[mediaType] = media.schema ? pointer([...at, 'content', mediaType, 'schema']) : undefined;
        }
        responses[status] = { headers, content };
      }
      const requestExamples: Record<string, unknown> = {};
      let requestMediaType: string | null = null;
      let requestMediaTypes: string[] = [];
      if (raw.requestBody) {
        const body = follow(document, [...base, 'requestBody']);
        requestMediaTypes = Object.keys(body.node.content as Record<string, Node>);
        const [mediaType, media] = Object.entries(body.node.content as Record<string, Node>)[0] ?? [];
        requestMediaType = mediaType ?? null;
        for (const name of Object.keys((media?.examples as Node | undefined) ?? {})) {
          requestExamples[name] = follow(document, [...body.at, 'content', mediaType!, 'examples', name]).node.value;
        }
      }
      const parameterNodes = [
        ...((item.parameters as unknown[] | undefined) ?? []).map((_, index) => ['paths', path, 'parameters', String(index)]),
        ...((raw.parameters as unknown[] | undefined) ?? []).map((_, index) => [...base, 'parameters', String(index)]),
      ];
      const parameters = parameterNodes.map((segments) => {
        const { at, node } = follow(document, segments);
        const schema = node.schema ? follow(document, [...at, 'schema']).node : {};
        return { name: node.name, in: node.in, required: node.required === true, schema } as Parameter;
      });
      operations.push({
        operationId: raw.operationId as string,
        method,
        path,
        scopes: security.find((requirement) => 'apiKey' in requirement)?.apiKey ?? [],
        authenticated: security.length > 0,
        publishable: security.some((requirement) => 'publishableKey' in requirement),
        responses,
        requestMediaType,
        requestMediaTypes,
        requestExamples,
        parameters,
      });
    }
  }
  return operations;
}
