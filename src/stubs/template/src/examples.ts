/**
 * The documented example answers of the contract: with `--examples`, every handler answers its operation's first
 * success response example. The response validator checks them on the way out like any other answer.
 */
import { loadDocument, type OpenApiDocument, readOperations, resolve } from './contract.js';
import type { HandlerResult, OperationId } from './handler-types.js';

type ExampleAnswer = { status: number; body?: unknown; contentType?: string; text?: string; headers?: Record<string, string> };

/**
 * Response headers a client acts on (it follows `Location`, sends `ETag` back in `If-Match`), answered with their
 * documented examples. The others describe the service's own state (rate limits, deprecation), which a fake
 * should not invent.
 */
const resourceHeaders = ['Location', 'ETag'];

let examples: Map<string, ExampleAnswer> | undefined;

export function documentedExample<K extends OperationId>(operationId: K): HandlerResult<K> {
  examples ??= readExamples(loadDocument());
  const answer = examples.get(operationId);
  if (!answer) throw new Error(`The contract documents no success example for ${operationId}.`);
  // A copy, so that a handler that changes the answer does not change the next one.
  return structuredClone(answer) as HandlerResult<K>;
}

export function readExamples(document: OpenApiDocument): Map<string, ExampleAnswer> {
  const answers = new Map<string, ExampleAnswer>();
  for (const operation of readOperations(document)) {
    const status = Object.keys(operation.responses)
      .filter((code) => /^2\d\d$/.test(code))
      .sort()[0];
    if (!status) continue;
    const response = resolve(document, operation.responses[status]);
    const headers = documentedHeaders(document, response);
    const content = response.content as Record<string, { example?: unknown; examples?: Record<string, unknown> }> | undefined;
    const [mediaType, media] = Object.entries(content ?? {})[0] ?? [];
    if (!mediaType || !media) {
      answers.set(operation.operationId, { status: Number(status), headers });
      continue;
    }
    const named = Object.values(media.examples ?? {})[0];
    const value = media.example ?? (named === undefined ? undefined : resolve(document, named).value);
    if (value === undefined) continue;
    if (/^application\/([a-z.-]+\+)?json$/.test(mediaType)) {
      const { request_id: _documentedId, ...body } = value as Record<string, unknown>;
      answers.set(operation.operationId, { status: Number(status), body, headers });
    } else {
      answers.set(operation.operationId, { status: Number(status), contentType: mediaType, text: String(value), headers });
    }
  }
  return answers;
}

function documentedHeaders(document: OpenApiDocument, response: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of resourceHeaders) {
    const header = (response.headers as Record<string, unknown> | undefined)?.[name];
    if (header === undefined) continue;
    const described = resolve(document, header);
    const schema = resolve(document, described.schema);
    const example = described.example ?? (schema.examples as unknown[] | undefined)?.[0] ?? schema.example;
    if (example !== undefined) headers[name] = String(example);
  }
  return headers;
}
