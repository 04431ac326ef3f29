/**
 * Where the split document (openapi/) keeps each operation's examples: the files the recorder reads its requests
 * from and writes the server's answers to. Only the split files are written, never the bundle (dist/), which
 * `npm run bundle` rebuilds from them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const documentRoot = fileURLToPath(new URL('../../openapi/', import.meta.url));

/** An example file as the document keeps it: a summary (and maybe a description) for the docs, and the value. */
export interface ExampleFile {
  summary?: string;
  description?: string;
  value: unknown;
}

export interface OperationExamples {
  operationId: string;
  method: string;
  /** The path as the document writes it, without the `/v1` base path: `/forms/{id}`. */
  path: string;
  /** The media type of the request body, if the operation takes one (the first, when it takes a file in several). */
  requestMediaType: string | undefined;
  /** Request body examples by name: the file of each (relative to openapi/). */
  requests: Record<string, string>;
  /** Response examples by status, media type and name: the file of each (relative to openapi/), or null when inline. */
  responses: Record<string, Record<string, Record<string, string | null>>>;
}

type Node = Record<string, unknown>;

const readYaml = (file: string): Node => YAML.parse(readFileSync(join(documentRoot, file), 'utf8')) as Node;
const refOf = (node: unknown): string | undefined =>
  typeof node === 'object' && node !== null && typeof (node as Node).$ref === 'string' ? ((node as Node).$ref as string) : undefined;
const resolveRef = (from: string, ref: string): string => relative(documentRoot, join(documentRoot, dirname(from), ref));

/** The node at `node` in `file`, following a `$ref` to another file; with the file it was found in. */
function followed(file: string, node: unknown): { file: string; node: Node } {
  const ref = refOf(node);
  return ref ? { file: resolveRef(file, ref), node: readYaml(resolveRef(file, ref)) } : { file, node: node as Node };
}

function examplesIn(file: string, content: unknown): Record<string, Record<string, string | null>> {
  const byMediaType: Record<string, Record<string, string | null>> = {};
  for (const [mediaType, media] of Object.entries((content ?? {}) as Record<string, Node>)) {
    const examples = (media.examples ?? {}) as Record<string, unknown>;
    byMediaType[mediaType] = Object.fromEntries(
      Object.entries(examples).map(([name, example]) => {
        const ref = refOf(example);
        return [name, ref ? resolveRef(file, ref) : null];
      }),
    );
  }
  return byMediaType;
}

const methods = ['get', 'put', 'post', 'patch', 'delete'];

/** Every operation of openapi/openapi.yaml with the files of its examples, keyed by operationId. */
export function operationExamples(): Map<string, OperationExamples> {
  const root = readYaml('openapi.yaml');
  const operations = new Map<string, OperationExamples>();
  for (const [path, item] of Object.entries(root.paths as Node)) {
    const { file, node } = followed('openapi.yaml', item);
    for (const method of methods.filter((candidate) => candidate in node)) {
      const operation = node[method] as Node;
      const body = followed(file, operation.requestBody ?? {});
      const requestMediaType = Object.keys((body.node.content ?? {}) as Node)[0];
      const requests = Object.values(examplesIn(body.file, body.node.content))[0] ?? {};
      const responses: OperationExamples['responses'] = {};
      for (const [status, response] of Object.entries(operation.responses as Node)) {
        const resolved = followed(file, response);
        responses[status] = examplesIn(resolved.file, resolved.node.content);
      }
      operations.set(operation.operationId as string, {
        operationId: operation.operationId as string,
        method,
        path,
        requestMediaType,
        requests: Object.fromEntries(Object.entries(requests).filter((entry): entry is [string, string] => entry[1] !== null)),
        responses,
      });
    }
  }
  return operations;
}

/** The example files of each webhook's payload, by event type (the webhook's name) and example name. */
export function webhookExamples(): Map<string, Record<string, string>> {
  const root = readYaml('openapi.yaml');
  const webhooks = new Map<string, Record<string, string>>();
  for (const [type, item] of Object.entries((root.webhooks ?? {}) as Node)) {
    const { file, node } = followed('openapi.yaml', item);
    const body = followed(file, (node.post as Node).requestBody);
    const examples = Object.values(examplesIn(body.file, body.node.content))[0] ?? {};
    webhooks.set(type, Object.fromEntries(Object.entries(examples).filter((entry): entry is [string, string] => entry[1] !== null)));
  }
  return webhooks;
}

export const readExample = (file: string): ExampleFile => readYaml(file) as unknown as ExampleFile;

/**
 * The text of an example file, in the document's YAML style: sequences not indented under their key, no folding,
 * and YAML 1.1 quoting, so a value such as `1_10`, `no` or a timestamp stays a string for every YAML reader.
 */
export const exampleText = (example: ExampleFile): string =>
  YAML.stringify(
    {
      ...(example.summary === undefined ? {} : { summary: example.summary }),
      ...(example.description === undefined ? {} : { description: example.description }),
      value: example.value,
    },
    {
      version: '1.1',
      indentSeq: false,
      lineWidth: 0,
      doubleQuotedMinMultiLineLength: Number.POSITIVE_INFINITY,
      singleQuote: true,
      aliasDuplicateObjects: false,
    },
  );

/** Writes `value` into the example file, keeping its summary; false when the file already reads so. */
export function writeExample(file: string, value: unknown): boolean {
  const path = join(documentRoot, file);
  const text = exampleText({ ...readExample(file), value });
  if (readFileSync(path, 'utf8') === text) return false;
  writeFileSync(path, text);
  return true;
}
