/**
 * The documented example answers of the contract: with `--examples`, every handler answers its operation's first
 * success response example. The response validator checks them on the way out like any other answer.
 */
import { loadDocument, type OpenApiDocument, readOperations, resolve } from './contract.js';
import type { HandlerResult, OperationId } from './handler-types.js';

type ExampleAnswer = { status: number; body?: unknown; contentType?: string; text?: string };

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
    const content = response.content as Record<string, { example?: unknown; examples?: Record<string, unknown> }> | undefined;
    const [mediaType, media] = Object.entries(content ?? {})[0] ?? [];
    if (!mediaType || !media) {
      answers.set(operation.operationId, { status: Number(status) });
      continue;
    }
    const named = Object.values(media.examples ?? {})[0];
    const value = media.example ?? (named === undefined ? undefined : resolve(document, named).value);
    if (value === undefined) continue;
    if (/^application\/([a-z.-]+\+)?json$/.test(mediaType)) {
      const { request_id: _documentedId, ...body } = value as Record<string, unknown>;
      answers.set(operation.operationId, { status: Number(status), body });
    } else {
      answers.set(operation.operationId, { status: Number(status), contentType: mediaType, text: String(value) });
    }
  }
  return answers;
}
