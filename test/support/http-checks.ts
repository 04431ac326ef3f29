/**
 * Checks shared by the HTTP tests: the problem+json shape of errors, the headers every response carries,
 * and a record of every body the app sends, so a file can assert that none leaked a stack trace or SQL.
 */

import type { Response, Test } from 'supertest';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestApi, type TestApi } from './harness.js';
import { storedRows } from './stores.js';

/** Stack frames, source paths, SQL and database errors (of either store) never belong in a response body. */
export const internals =
  /\n\s+at |\bat [^\s]+ \([^)\s]+:\d+:\d+\)|\.(ts|js|mjs):\d+|node_modules|\/work\/|\/src\/|SQLITE_|SqliteError|no such table|relation "|violates [a-z -]*constraint|duplicate key value|\b(SELECT \S|INSERT INTO|DELETE FROM|UPDATE \S+ SET|CREATE TABLE)/;

export type WatchedApi = TestApi & {
  /** Every body the app has sent so far. */
  bodies: string[];
  /** Rows of a raw query on the store's database (`?` placeholders), to check what is (and is not) stored. */
  rows(sql: string, ...params: unknown[]): Promise<Array<Record<string, unknown>>>;
  /** Fails when any body sent so far contains a stack trace, a source path or SQL. */
  expectNoInternals(): void;
};

/** `createTestApi`, plus a record of every response body (res.send is where every body passes). */
export async function watchedApi(options: Parameters<typeof createTestApi>[0] = {}): Promise<WatchedApi> {
  const api = await createTestApi(options);
  const bodies: string[] = [];
  const response = api.app.response as unknown as { send(this: unknown, body?: unknown): unknown };
  const send = response.send;
  response.send = function (this: unknown, body?: unknown) {
    if (body !== undefined && body !== null) {
      bodies.push(typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : JSON.stringify(body));
    }
    return send.call(this, body);
  };
  return Object.assign(api, {
    bodies,
    rows: (sql: string, ...params: unknown[]) => storedRows(api.store, sql, ...params),
    expectNoInternals() {
      const leaking = bodies.filter((body) => internals.test(body));
      expect(leaking).toEqual([]);
    },
  });
}

type ApiOptions = Parameters<typeof createTestApi>[0];

/**
 * The API of a test file: started before the file's tests (after hooks registered earlier, before those
 * registered later), and after them checked for leaked internals and closed. Use it inside tests and hooks.
 * `options` may be a function, for options that must be made when the API starts (a store, an event publisher).
 */
export function useWatchedApi(options: ApiOptions | (() => ApiOptions) = {}): WatchedApi {
  let started: WatchedApi | undefined;
  beforeAll(async () => {
    started = await watchedApi(typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    if (!started) return;
    started.expectNoInternals();
    await started.close();
  });
  return new Proxy({} as WatchedApi, {
    get(_target, property) {
      if (!started) throw new Error('The API starts in beforeAll: use it inside tests and hooks, not while the file loads.');
      return Reflect.get(started, property);
    },
  });
}

/** Limits high enough that tests which are not about rate limits never meet one. */
export const generousLimits = {
  perKeyPerSecond: 100_000,
  perWorkspacePerMinute: 1_000_000,
  failedAuthPerAddressPerMinute: 100_000,
  publicPerAddressPerMinute: 100_000,
};

/** X-Request-Id equals the body's request_id, and the three rate-limit headers are there. */
export function expectEnvelopeHeaders(res: Response): void {
  expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{24}$/);
  expect(res.body.request_id).toBe(res.headers['x-request-id']);
  expect(res.headers['x-ratelimit-limit']).toMatch(/^[1-9][0-9]*$/);
  expect(res.headers['x-ratelimit-remaining']).toMatch(/^[0-9]+$/);
  expect(res.headers['x-ratelimit-reset']).toMatch(/^[0-9]+$/);
  // A Unix timestamp in seconds, not milliseconds and not a delay.
  expect(Math.abs(Number(res.headers['x-ratelimit-reset']) - Date.now() / 1000)).toBeLessThan(3600);
}

/** A problem+json response with this status, type and code (and the envelope headers). */
export function expectProblem(res: Response, status: number, type: string, code: string): void {
  expect({ status: res.status, type: res.body.type, code: res.body.code }).toEqual({ status, type, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.message).toBe('string');
  expectEnvelopeHeaders(res);
}

/** The issues of a 400/422, as `location pointer code` lines (order-insensitive comparisons are easy). */
export const issuesOf = (res: Response): string[] =>
  ((res.body.details?.errors ?? []) as Array<{ location: string; pointer: string; code: string }>).map(
    (issue) => `${issue.location} ${issue.pointer} ${issue.code}`,
  );

/** A syntactically valid id that names nothing. */
export const absentId = (prefix: string): string => `${prefix}_${'A'.repeat(24)}`;

/**
 * A response parser that keeps the body as text, whatever its media type (supertest buffers only the types it
 * knows): `api.call('get', path).buffer(true).parse(asText)`, then `res.body` is the text.
 */
export const asText: Extract<Parameters<Test['parse']>[0], (res: never, done: never) => void> = (res, done) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    text += chunk;
  });
  res.on('end', () => done(null, text));
};
