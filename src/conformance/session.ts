/**
 * One run of the kit against one server: sends each request, puts every answer through the common checks, and
 * keeps per operation what passed, what failed and why, and whether the server said "not implemented".
 */
import { type CheckName, isNotImplemented, problemSummary, responseFindings } from './checks.js';
import type { ConformanceContract, ContractOperation } from './contract.js';
import type { Exchange, HttpClient } from './http.js';

/**
 * `pass`: its happy path succeeded and no check failed. `skipped`: its happy path could not be run (the notes say
 * why), though its refusals may have been checked. `not_implemented`: it answered 501 `not_implemented`.
 */
export type Outcome = 'pass' | 'fail' | 'not_implemented' | 'skipped';

export interface OperationResult {
  operationId: string;
  method: string;
  path: string;
  outcome: Outcome;
  requests: number;
  /** Checks that ran on this operation and held every time. */
  passed: CheckName[];
  failures: Array<{ check: CheckName; request: string; message: string }>;
  /** What could not be tried, and why (a key that was not given, a state the server cannot be brought to). */
  notes: string[];
}

export interface CallOptions {
  /** The key to send as `Bearer <key>`; `null` sends no Authorization header. Default: the main key. */
  key?: string | null;
  /** An Authorization header sent as it is (a malformed one). */
  authorization?: string;
  path?: Record<string, string | number | undefined>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** A body sent as it is, with `contentType`: text, or the bytes of a file. */
  rawBody?: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
  /** Another method than the operation's, on its path (a method the path does not have). */
  method?: string;
}

export interface Expectation {
  status: readonly number[];
  check: CheckName;
  /** What the request was meant to show, for the failure message ("a form's creation"). */
  what: string;
  /** The problem's `code` a refusal must carry, when the status alone does not say which refusal it is. */
  code?: string;
  /** Added to the failure: what the person running the kit can do about it (an option to pass). */
  hint?: string;
}

interface OperationRecord {
  requests: number;
  /** Whether the operation did its job once, as its happy path asks: only then can it pass. */
  succeeded: boolean;
  notImplemented: boolean;
  /** Whether the last request answered "not implemented" (a prerequisite that is not written yet has not failed). */
  lastNotImplemented: boolean;
  ran: Set<CheckName>;
  failures: OperationResult['failures'];
  notes: string[];
}

/** The checks of a request that asks an operation to do its job (not to refuse something). */
const happyPathChecks: ReadonlySet<CheckName> = new Set(['positive_data_acceptance', 'ensure_resource_availability']);

const maxRetries = 3;
const maxRetryAfterSeconds = 5;

export function createSession(contract: ConformanceContract, client: HttpClient, mainKey: string) {
  const records = new Map<string, OperationRecord>(
    contract.operations.map((operation) => [
      operation.operationId,
      { requests: 0, succeeded: false, notImplemented: false, lastNotImplemented: false, ran: new Set(), failures: [], notes: [] },
    ]),
  );
  const record = (operationId: string) => {
    const found = records.get(operationId);
    if (!found) throw new Error(`The contract has no operation ${operationId}.`);
    return found;
  };

  /**
   * Sends one request of the operation and checks the answer. Returns the exchange when the server answered as
   * `expect` says (or always, without `expect`), `undefined` when it did not or said "not implemented".
   */
  async function call(operationId: string, options: CallOptions = {}, expect?: Expectation): Promise<Exchange | undefined> {
    const operation = contract.operation(operationId);
    const target = record(operationId);
    const path = expandPath(operation, options.path ?? {});
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query ?? {})) {
      const fallback = operation.parameters.find((parameter) => parameter.in === 'query' && parameter.name === name && parameter.required)
        ?.schema.examples?.[0];
      if (value !== undefined || fallback !== undefined) query.set(name, String(value ?? fallback));
    }
    const headers: Record<string, string> = { accept: acceptFor(operation), ...options.headers };
    const key = options.key === undefined ? mainKey : options.key;
    if (options.authorization !== undefined) headers.authorization = options.authorization;
    else if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | Uint8Array | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] = options.contentType ?? 'application/json';
    } else if (options.body !== undefined) {
      const mediaType = options.contentType ?? operation.requestMediaType ?? 'application/json';
      headers['content-type'] = mediaType;
      body =
        mediaType === 'application/x-www-form-urlencoded'
          ? new URLSearchParams(options.body as Record<string, string>).toString()
          : JSON.stringify(options.body);
    }
    const queryText = query.size > 0 ? `?${query}` : '';
    const method = options.method ?? operation.method.toUpperCase();
    const label = `${method} ${path}${queryText}`;
    target.requests += 1;
    target.lastNotImplemented = false;
    let exchange: Exchange | undefined;
    for (let attempt = 0; ; attempt += 1) {
      try {
        exchange = await client.send({ method, path: `${path}${queryText}`, headers, body });
      } catch (error) {
        target.failures.push({ check: 'not_a_server_error', request: label, message: `no answer: ${(error as Error).message}` });
        return undefined;
      }
      // The kit is faster than a key's limit allows: it waits as a well-behaved client would, unless the 429 is what
      // it was looking for. A 429 still goes through the checks below when the wait would be too long.
      const wait = Number(exchange.headers['retry-after']);
      if (exchange.status !== 429 || expect?.status.includes(429) || attempt >= maxRetries || !(wait <= maxRetryAfterSeconds)) break;
      await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 0.1) * 1000));
    }
    const findings = responseFindings(contract, operation, exchange);
    for (const name of [
      'not_a_server_error',
      'status_code_conformance',
      'content_type_conformance',
      'response_headers_conformance',
    ] as const) {
      target.ran.add(name);
    }
    if (exchange.json !== undefined) target.ran.add('response_schema_conformance').add('request_id_conformance');
    for (const finding of findings) target.failures.push({ ...finding, request: label });
    if (isNotImplemented(exchange)) {
      target.notImplemented = true;
      target.lastNotImplemented = true;
      return undefined;
    }
    if (!expect) return exchange;
    target.ran.add(expect.check);
    if (!expect.status.includes(exchange.status)) {
      target.failures.push({
        check: expect.check,
        request: label,
        message: `${expect.what}: expected ${expect.status.join(' or ')}, got ${exchange.status}${problemSummary(exchange)}${hintOf(expect)}`,
      });
      return undefined;
    }
    const code = (exchange.json as { code?: unknown } | undefined)?.code;
    if (expect.code !== undefined && code !== expect.code) {
      target.failures.push({
        check: expect.check,
        request: label,
        message: `${expect.what}: expected the code ${expect.code}, got ${exchange.status}${problemSummary(exchange) || ' without a code'}${hintOf(expect)}`,
      });
      return undefined;
    }
    if (happyPathChecks.has(expect.check) && exchange.status < 300) target.succeeded = true;
    return exchange;
  }

  const fail = (operationId: string, check: CheckName, request: string, message: string) => {
    const target = record(operationId);
    target.ran.add(check);
    target.failures.push({ check, request, message });
  };
  const note = (operationId: string, text: string) => {
    if (!record(operationId).notes.includes(text)) record(operationId).notes.push(text);
  };
  /** Notes about the whole run: checks that need a key that was not given. */
  const runNotes: string[] = [];
  const runNote = (text: string) => {
    if (!runNotes.includes(text)) runNotes.push(text);
  };
  const ran = (operationId: string, check: CheckName) => record(operationId).ran.add(check);
  const notImplemented = (operationId: string) => record(operationId).notImplemented;
  const lastCallNotImplemented = (operationId: string) => record(operationId).lastNotImplemented;

  function results(): OperationResult[] {
    return contract.operations.map((operation) => {
      const target = record(operation.operationId);
      const failedChecks = new Set(target.failures.map((failure) => failure.check));
      const outcome: Outcome =
        target.failures.length > 0 ? 'fail' : target.notImplemented ? 'not_implemented' : target.succeeded ? 'pass' : 'skipped';
      return {
        operationId: operation.operationId,
        method: operation.method.toUpperCase(),
        path: operation.path,
        outcome,
        requests: target.requests,
        passed: [...target.ran].filter((check) => !failedChecks.has(check)),
        failures: target.failures,
        notes: target.notes,
      };
    });
  }

  return { contract, call, fail, note, runNote, runNotes, ran, notImplemented, lastCallNotImplemented, results };
}

export type Session = ReturnType<typeof createSession>;

const hintOf = (expect: Expectation) => (expect.hint ? `; ${expect.hint}` : '');

/** Every media type the operation answers in, so that content negotiation never refuses the kit (406). */
function acceptFor(operation: ContractOperation): string {
  const types = new Set(Object.values(operation.responses).flatMap((response) => Object.keys(response.content)));
  return [...types].join(', ') || '*/*';
}

/**
 * The operation's path with its parameters filled in; a parameter not given takes the example of its schema (an
 * id of the right shape that names nothing), so that an operation whose prerequisite could not be created is
 * still asked, and a stub still answers "not implemented".
 */
function expandPath(operation: ContractOperation, values: Record<string, string | number | undefined>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value =
      values[name] ?? operation.parameters.find((parameter) => parameter.in === 'path' && parameter.name === name)?.schema.examples?.[0];
    if (value === undefined) throw new Error(`${operation.operationId}: no value for the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}
