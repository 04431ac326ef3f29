/**
 * Every request a page made, checked against the contract: each must be a `/v1` operation of the bundled document,
 * with only the query parameters that operation declares. The dashboard is an API client and nothing more; this is
 * how a test holds it to that.
 */
import { loadContract, matchOperation, type OpenApiDocument, resolve } from '../../src/http/contract-document.js';
import type { RecordedRequest } from './dashboard-browser.js';

export interface Verdict {
  request: string;
  /** The operation it is, or why it is none. */
  operationId?: string;
  problem?: string;
}

const contract = loadContract();

function declaredQuery(document: OpenApiDocument, path: string, method: string): Set<string> {
  const item = (document.paths as Record<string, Record<string, unknown>>)[path] ?? {};
  const operation = (item[method] ?? {}) as { parameters?: unknown[] };
  const parameters = [...((item.parameters as unknown[]) ?? []), ...(operation.parameters ?? [])].map((parameter) =>
    resolve(document, parameter),
  );
  return new Set(parameters.filter((parameter) => parameter.in === 'query').map((parameter) => String(parameter.name)));
}

/** Each distinct request, with its operation or its problem. */
export function checkAgainstContract(requests: readonly RecordedRequest[]): Verdict[] {
  const seen = new Map<string, Verdict>();
  for (const { method, path } of requests) {
    const url = new URL(path, 'https://service.invalid');
    const request = `${method} ${url.pathname}${url.search}`;
    if (seen.has(request)) continue;
    if (!url.pathname.startsWith('/v1/')) {
      seen.set(request, { request, problem: 'not under /v1' });
      continue;
    }
    const match = matchOperation(contract.operations, method.toLowerCase(), url.pathname.slice('/v1'.length));
    if (!match || !('operation' in match)) {
      seen.set(request, { request, problem: 'no operation of the contract' });
      continue;
    }
    const declared = declaredQuery(contract.document, match.operation.path, match.operation.method);
    // A deepObject parameter (`metadata[plan]=pro`) is declared by its name before the brackets.
    const undeclared = [...new Set(url.searchParams.keys())].filter((name) => !declared.has(name.replace(/\[.*$/, '')));
    seen.set(
      request,
      undeclared.length > 0
        ? { request, operationId: match.operation.operationId, problem: `undeclared query parameters: ${undeclared.join(', ')}` }
        : { request, operationId: match.operation.operationId },
    );
  }
  return [...seen.values()];
}
