/**
 * What the pipeline remembers of the validator's request check (validator-stages.ts), with a stand-in for the
 * validator's stage that counts how often it is asked.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/http/contract-document.js';
import { withoutRepeatedRouting } from '../../src/http/validator-stages.js';

const getVersion = { operationId: 'getFormVersion', takesOnlyUrlParameters: true, takesQueryParameters: false } as unknown as Operation;
const listForms = { operationId: 'listForms', takesOnlyUrlParameters: true, takesQueryParameters: true } as unknown as Operation;
const deleteForm = { operationId: 'deleteForm', takesOnlyUrlParameters: false, takesQueryParameters: false } as unknown as Operation;
const getForm = {
  operationId: 'getForm',
  takesOnlyUrlParameters: true,
  takesQueryParameters: false,
  verdictHeaders: ['if-none-match'],
} as unknown as Operation;

/** The request stage as the pipeline wraps it, and how many times the stand-in validator ran. */
function wrappedCheck(verdict: (req: Request) => unknown = () => undefined) {
  let checks = 0;
  const requestMiddleware: RequestHandler = (req, _res, next) => {
    checks++;
    next(verdict(req));
  };
  const [stage] = withoutRepeatedRouting([requestMiddleware]);
  const send = (options: {
    operation?: Operation;
    params?: Record<string, string>;
    url?: string;
    validatedAs?: string;
    issues?: boolean;
    headers?: Record<string, string>;
    /** Receives the request as the next stage sees it. */
    seen?: (req: Request) => void;
  }) =>
    new Promise<unknown>((resolve) => {
      const operation = options.operation ?? getVersion;
      const req = {
        originalUrl: options.url ?? '/v1/forms/x/versions/1',
        openapi: { schema: { operationId: options.validatedAs ?? operation.operationId } },
        get: (name: string) => options.headers?.[name.toLowerCase()],
      } as unknown as Request;
      const locals = {
        operation,
        pathParams: options.params ?? { id: 'form_1', version: '1' },
        ...(options.issues ? { parameterIssues: [{}] } : {}),
      };
      stage!(
        req,
        { locals } as unknown as Response,
        ((error?: unknown) => {
          options.seen?.(req);
          resolve(error);
        }) as NextFunction,
      );
    });
  return { send, checks: () => checks };
}

describe('remembering a passed request check', () => {
  it('when the same path parameters pass twice, then the second request is not checked again', async () => {
    const check = wrappedCheck();
    await check.send({});
    await check.send({});
    expect(check.checks()).toBe(1);
    await check.send({ params: { id: 'form_1', version: '2' } });
    expect(check.checks()).toBe(2);
  });

  it('when a read takes If-None-Match, then each value of the header is another request, and its absence one more', async () => {
    const check = wrappedCheck();
    const read = (headers?: Record<string, string>) => check.send({ operation: getForm, params: { id: 'form_1' }, headers });
    await read({ 'if-none-match': '"a"' });
    await read({ 'if-none-match': '"a"' });
    expect(check.checks()).toBe(1);
    await read({ 'if-none-match': 'not a tag' });
    await read();
    expect(check.checks()).toBe(3);
  });

  it('when the values are split differently between the parameters, then they are another request', async () => {
    const check = wrappedCheck();
    await check.send({ params: { id: 'a","b', version: 'c' } });
    await check.send({ params: { id: 'a', version: 'b","c' } });
    expect(check.checks()).toBe(2);
  });

  it('when the check refuses, then the refusal is not remembered and reaches the pipeline each time', async () => {
    const refusal = new Error('refused');
    const check = wrappedCheck(() => refusal);
    expect(await check.send({})).toBe(refusal);
    expect(await check.send({})).toBe(refusal);
    expect(check.checks()).toBe(2);
  });

  it.each([
    ['an operation that takes more than its URL', { operation: deleteForm }],
    ['a value the pipeline has an issue with (1e0)', { issues: true }],
    ['a key longer than the bound (leading zeros)', { params: { id: 'form_1', version: `${'0'.repeat(300)}1` } }],
    ['a check made against another operation', { validatedAs: 'exportSubmissions' }],
  ])('when the request has %s, then it is checked every time', async (_case, options) => {
    const check = wrappedCheck();
    await check.send(options);
    await check.send(options);
    expect(check.checks()).toBe(2);
  });

  it('when more pairs pass than are remembered, then the oldest is checked again', async () => {
    const check = wrappedCheck();
    for (let index = 0; index <= 10_000; index++) await check.send({ params: { id: 'form_1', version: String(index) } });
    expect(check.checks()).toBe(10_001);
    await check.send({ params: { id: 'form_1', version: '10000' } });
    expect(check.checks()).toBe(10_001);
    await check.send({ params: { id: 'form_1', version: '0' } });
    expect(check.checks()).toBe(10_002);
  });

  it('when a list is asked for with the same query string again, then it is not checked again and gets the query the check left', async () => {
    // As the validator does: the query's text coerced to numbers, and a default filled in.
    const check = wrappedCheck((req) => {
      Object.defineProperty(req, 'query', { writable: true, value: { limit: 100, sort: 'created_at' } });
      return undefined;
    });
    const list = { operation: listForms, params: {}, url: '/v1/forms?limit=100' };
    const seen: unknown[] = [];
    await check.send({ ...list, seen: (req) => seen.push(req.query) });
    await check.send({ ...list, seen: (req) => seen.push(req.query) });
    expect(check.checks()).toBe(1);
    expect(seen).toEqual([
      { limit: 100, sort: 'created_at' },
      { limit: 100, sort: 'created_at' },
    ]);
    // Shared between the requests that get it, so no handler can change it for the next.
    expect(Object.isFrozen(seen[1])).toBe(true);
    expect(seen[0]).not.toBe(seen[1]);
    for (const url of ['/v1/forms?limit=10', '/v1/forms?limit=100&sort=created_at', '/v1/forms']) await check.send({ ...list, url });
    expect(check.checks()).toBe(4);
  });

  it('when an operation without query parameters passes with an empty query string, then the query is left as Express parses it', async () => {
    const check = wrappedCheck();
    const seen: unknown[] = [];
    for (let index = 0; index < 2; index++)
      await check.send({ url: '/v1/forms/x/versions/1?', seen: (req) => seen.push(Object.hasOwn(req, 'query')) });
    expect(check.checks()).toBe(1);
    expect(seen).toEqual([false, false]);
  });
});
