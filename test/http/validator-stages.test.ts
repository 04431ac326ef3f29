/**
 * What the pipeline remembers of the validator's request check (validator-stages.ts), with a stand-in for the
 * validator's stage that counts how often it is asked.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/http/contract-document.js';
import { withoutRepeatedRouting } from '../../src/http/validator-stages.js';

const getVersion = { operationId: 'getFormVersion', takesOnlyPathParameters: true } as unknown as Operation;
const listForms = { operationId: 'listForms', takesOnlyPathParameters: false } as unknown as Operation;

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
  }) =>
    new Promise<unknown>((resolve) => {
      const operation = options.operation ?? getVersion;
      const req = {
        originalUrl: options.url ?? '/v1/forms/x/versions/1',
        openapi: { schema: { operationId: options.validatedAs ?? operation.operationId } },
      } as unknown as Request;
      const locals = {
        operation,
        pathParams: options.params ?? { id: 'form_1', version: '1' },
        ...(options.issues ? { parameterIssues: [{}] } : {}),
      };
      stage!(req, { locals } as unknown as Response, resolve as NextFunction);
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
    ['a query string', { url: '/v1/forms/x/versions/1?x=1' }],
    ['an operation that takes more than its path', { operation: listForms }],
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
});
