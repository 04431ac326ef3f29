// Redoc's `x-codeSamples` for every operation and every event of the bundled document, built from the document's own
// examples (path parameters from their schemas' examples, the body from the first request example), so the samples
// change when the contract does and are never written by hand. The bundle step (src/cli/code-samples.ts) and the
// server's in-process bundle both add them, so the two documents agree.
//
// Every sample runs as pasted: the key comes from FORM_FUNNEL_KEY and the base URL from FORM_FUNNEL_BASE_URL
// (production when unset), a POST sends an Idempotency-Key, a change to a resource with an ETag sends If-Match with
// the ETag of a read just before, and a list is followed to its last page. test/contract/code-samples-mock.test.ts runs
// them all against the mock.
import { type CodeSample, type Json, type Operation, productionUrl } from './code-samples/document.js';
import { sampleRequest } from './code-samples/request.js';
import { curlSample } from './code-samples/shell.js';
import { typeScriptSample } from './code-samples/typescript.js';
import { webhookCodeSamples } from './code-samples/webhooks.js';

export type { CodeSample } from './code-samples/document.js';
export { BASE_URL_VARIABLE, KEY_VARIABLE } from './code-samples/request.js';
export { WEBHOOK_SECRET_VARIABLE, WEBHOOK_URL_VARIABLE } from './code-samples/webhooks.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export function codeSamples(document: Json, pathName: string, method: string, pathItem: Json, operation: Operation): CodeSample[] {
  const request = sampleRequest(document, pathName, method, pathItem, operation);
  const production = productionUrl(document);
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(request, production) },
    { lang: 'TypeScript', label: 'TypeScript client', source: typeScriptSample(request, production) },
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
  for (const [eventType, pathItem] of Object.entries((result.webhooks ?? {}) as Record<string, Json>)) {
    const operation = pathItem.post as Operation | undefined;
    if (operation) operation['x-codeSamples'] = webhookCodeSamples(result, eventType, operation);
  }
  return result;
}
