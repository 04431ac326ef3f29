/**
 * The checks every answer goes through, whatever was asked: named as Schemathesis names its checks, so a report
 * reads the same to someone who knows that tool. The request-specific checks (what status a scenario expects)
 * live with the scenarios.
 */
import type { ConformanceContract, ContractOperation, DocumentedResponse } from './contract.js';
import type { Exchange } from './http.js';

export const checkNames = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'request_id_conformance',
  'positive_data_acceptance',
  'negative_data_rejection',
  'ensure_resource_availability',
  'use_after_free',
  'ignored_auth',
  'scope_enforcement',
  'workspace_isolation',
  'pagination',
  'rate_limit_headers',
  'unsupported_method',
  'idempotency_replay',
  'conditional_request',
] as const;

export type CheckName = (typeof checkNames)[number];

export interface Finding {
  check: CheckName;
  message: string;
}

/**
 * A 501 problem with code `not_implemented`: the answer of a generated stub whose handler is not written yet.
 * It is reported as "not implemented", neither a pass nor a contract violation.
 */
export function isNotImplemented(exchange: Exchange): boolean {
  const body = exchange.json as { code?: unknown } | undefined;
  return exchange.status === 501 && body?.code === 'not_implemented';
}

/** The documented response an answer falls under: its exact status, then `4XX`-style ranges, then `default`. */
function documentedResponse(operation: ContractOperation, status: number): DocumentedResponse | undefined {
  return operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default;
}

const mediaTypeOf = (contentType: string | undefined) => contentType?.split(';')[0]?.trim().toLowerCase();

/** What is wrong with an answer whatever the request was: an empty list when it conforms. */
export function responseFindings(contract: ConformanceContract, operation: ContractOperation, exchange: Exchange): Finding[] {
  const findings: Finding[] = [];
  const add = (check: CheckName, message: string) => findings.push({ check, message });
  const requestId = exchange.headers['x-request-id'];
  const body = exchange.json as { request_id?: unknown } | undefined;

  if (isNotImplemented(exchange)) {
    // A stub's 501 is not in the document; what it must still carry is the problem shape of every error.
    if (mediaTypeOf(exchange.headers['content-type']) !== 'application/problem+json') {
      add(
        'content_type_conformance',
        `501 answered as ${exchange.headers['content-type'] ?? 'no content type'}, not application/problem+json`,
      );
    }
    if (!requestId) add('response_headers_conformance', '501 without an X-Request-Id header');
    if (body?.request_id !== requestId)
      add('request_id_conformance', `request_id ${String(body?.request_id)} differs from X-Request-Id ${requestId}`);
    return findings;
  }

  if (exchange.status >= 500) add('not_a_server_error', `${exchange.status}${problemSummary(exchange)}${serverErrorCause(exchange)}`);
  const documented = documentedResponse(operation, exchange.status);
  if (!documented) {
    add('status_code_conformance', `${exchange.status} is not a documented status of ${operation.operationId}${problemSummary(exchange)}`);
    return findings;
  }

  const mediaType = mediaTypeOf(exchange.headers['content-type']);
  const declaredTypes = Object.keys(documented.content);
  if (declaredTypes.length > 0 && (!mediaType || !declaredTypes.includes(mediaType))) {
    add(
      'content_type_conformance',
      `${exchange.status} answered as ${mediaType ?? 'no content type'}; the document declares ${declaredTypes.join(', ')}`,
    );
  }

  if (!requestId) add('response_headers_conformance', `${exchange.status} without an X-Request-Id header`);
  for (const [name, schemaPointer] of Object.entries(documented.headers)) {
    const value = exchange.headers[name];
    if (value === undefined) continue;
    const errors = contract.schemaErrors(schemaPointer, headerValue(contract, schemaPointer, value));
    if (errors.length > 0)
      add('response_headers_conformance', `header ${name}: ${JSON.stringify(value)} ${errors[0]!.message ?? 'does not match its schema'}`);
  }

  if (mediaType && declaredTypes.includes(mediaType)) {
    const schemaPointer = documented.content[mediaType];
    const json = /^application\/([\w.-]+\+)?json$/.test(mediaType);
    if (schemaPointer && json && exchange.json === undefined) add('response_schema_conformance', `${exchange.status} body is not JSON`);
    else if (schemaPointer) {
      // A body in another media type (CSV, NDJSON) is described as the text it is.
      const errors = contract.schemaErrors(schemaPointer, json ? exchange.json : exchange.text);
      if (errors.length > 0) add('response_schema_conformance', `${exchange.status} body: ${describeErrors(errors)}`);
    }
  }

  if (exchange.json !== undefined && typeof exchange.json === 'object' && exchange.json !== null && !Array.isArray(exchange.json)) {
    if (body?.request_id !== requestId) {
      add(
        'request_id_conformance',
        `request_id ${JSON.stringify(body?.request_id)} differs from X-Request-Id ${JSON.stringify(requestId)}`,
      );
    }
  }
  return findings;
}

/**
 * A header's text as the value its schema describes: headers arrive as text, so a number-only schema (one that
 * refuses any string) is given the number the text spells.
 */
function headerValue(contract: ConformanceContract, schemaPointer: string, value: string): unknown {
  const numeric = contract.schemaErrors(schemaPointer, '').some((error) => error.keyword === 'type');
  return numeric && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
}

function describeErrors(errors: ReadonlyArray<{ instancePath: string; message?: string }>): string {
  return errors
    .slice(0, 3)
    .map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`)
    .join('; ');
}

/**
 * Where the cause of a 500 usually is. A server that validates its own answers (a generated stub does) turns an answer
 * the contract does not describe into a 500, and outside production lists what was wrong in
 * `details.response_errors`: then the cause is the handler's answer, and the kit shows it.
 */
export function serverErrorCause(exchange: Exchange): string {
  if (exchange.status !== 500) return '';
  const details = (exchange.json as { details?: { response_errors?: unknown } } | undefined)?.details;
  const issues = Array.isArray(details?.response_errors)
    ? (details.response_errors as Array<{ pointer?: unknown; message?: unknown }>)
    : [];
  if (issues.length === 0) {
    return (
      ": the server failed on its own side, and its log says why (a generated stub's 500 is usually a handler's answer that" +
      ' failed the response validation: outside production it lists what was wrong in details.response_errors)'
    );
  }
  const listed = issues.slice(0, 5).map((issue) => `${String(issue.pointer ?? '') || '/'} ${String(issue.message ?? '')}`.trim());
  const more = issues.length > listed.length ? `; and ${issues.length - listed.length} more` : '';
  return `: the handler's answer failed the server's own response validation: ${listed.join('; ')}${more}`;
}

/** ` (code: message)` of a problem body, to say why a request was refused. */
export function problemSummary(exchange: Exchange): string {
  const body = exchange.json as { code?: unknown; message?: unknown } | undefined;
  return typeof body?.code === 'string' ? ` (${body.code}: ${String(body.message ?? '').slice(0, 200)})` : '';
}
