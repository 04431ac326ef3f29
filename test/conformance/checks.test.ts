/**
 * The checks every answer goes through, on a small document of one operation, so that each can be seen to fail
 * for the reason it names.
 */
import { describe, expect, it } from 'vitest';
import { isNotImplemented, responseFindings } from '../../src/conformance/checks.js';
import { conformanceContractOf } from '../../src/conformance/contract.js';
import type { Exchange, HttpClient } from '../../src/conformance/http.js';
import { createSession } from '../../src/conformance/session.js';
import type { OpenApiDocument } from '../../src/http/contract-document.js';

const document = {
  openapi: '3.1.0',
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', examples: ['thg_1'] } }],
        responses: {
          '200': {
            description: 'The thing',
            headers: {
              'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
              'X-RateLimit-Remaining': { schema: { type: 'integer', minimum: 0 } },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
    },
  },
  components: {
    headers: { 'X-Request-Id': { schema: { type: 'string', pattern: '^req_' } } },
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'request_id'],
        properties: { id: { type: 'string' }, request_id: { type: 'string' } },
      },
      Problem: {
        type: 'object',
        required: ['code', 'request_id'],
        properties: { code: { type: 'string' }, request_id: { type: 'string' } },
      },
    },
    responses: {
      NotFound: { description: 'Not found', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
    },
  },
} as unknown as OpenApiDocument;

const contract = conformanceContractOf(document);
const operation = contract.operation('getThing');

function answer(status: number, body: unknown, headers: Record<string, string> = {}): Exchange {
  const text = JSON.stringify(body);
  return {
    method: 'GET',
    url: 'http://127.0.0.1/v1/things/thg_1',
    requestHeaders: {},
    status,
    headers: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', 'x-request-id': 'req_1', ...headers },
    text,
    json: body,
  };
}
const checksOf = (exchange: Exchange) => responseFindings(contract, operation, exchange).map((finding) => finding.check);

describe('the common checks', () => {
  it('when the answer is as documented, then nothing is found', () => {
    expect(
      responseFindings(contract, operation, answer(200, { id: 'thg_1', request_id: 'req_1' }, { 'x-ratelimit-remaining': '7' })),
    ).toEqual([]);
    expect(responseFindings(contract, operation, answer(404, { code: 'resource_not_found', request_id: 'req_1' }))).toEqual([]);
  });

  it('when the status is not documented, then status_code_conformance; when it is 5xx, not_a_server_error too', () => {
    expect(checksOf(answer(418, { code: 'teapot', request_id: 'req_1' }))).toEqual(['status_code_conformance']);
    expect(checksOf(answer(500, { code: 'internal_error', request_id: 'req_1' }))).toEqual([
      'not_a_server_error',
      'status_code_conformance',
    ]);
  });

  const serverErrorMessage = (body: unknown) =>
    responseFindings(contract, operation, answer(500, body)).find((finding) => finding.check === 'not_a_server_error')?.message;

  it('when a 500 lists details.response_errors, then not_a_server_error says the answer failed its own response validation and what was wrong', () => {
    const message = serverErrorMessage({
      code: 'internal_error',
      message: 'Something went wrong on our side.',
      request_id: 'req_1',
      details: {
        response_errors: [
          { pointer: '/id', code: 'required', message: "must have required property 'id'" },
          { pointer: '', code: 'type', message: 'must be object' },
        ],
      },
    });
    expect(message).toBe(
      "500 (internal_error: Something went wrong on our side.): the handler's answer failed the server's own response validation: /id must have required property 'id'; / must be object",
    );
  });

  it('when a response error lacks its pointer or its message, then it is still listed, as the body or without a message', () => {
    const message = serverErrorMessage({
      code: 'internal_error',
      message: 'Failed.',
      request_id: 'req_1',
      details: {
        response_errors: [
          { code: 'type', message: 'must be object' },
          { pointer: '/id', code: 'required' },
        ],
      },
    });
    expect(message).toBe(
      "500 (internal_error: Failed.): the handler's answer failed the server's own response validation: / must be object; /id",
    );
  });

  it('when a 500 is not JSON (a proxy’s HTML page), then not_a_server_error still points at the server log', () => {
    const html: Exchange = { ...answer(500, {}), headers: { 'content-type': 'text/html', 'x-request-id': 'req_1' }, text: '<h1>500</h1>' };
    html.json = undefined;
    const finding = responseFindings(contract, operation, html).find((candidate) => candidate.check === 'not_a_server_error');
    expect(finding?.message).toMatch(/^500: the server failed on its own side, and its log says why/);
  });

  it('when a 500 lists more than five response errors, then the first five are shown and the rest counted', () => {
    const response_errors = Array.from({ length: 7 }, (_, index) => ({ pointer: `/f${index}`, code: 'required', message: 'missing' }));
    const message = serverErrorMessage({ code: 'internal_error', message: 'Failed.', request_id: 'req_1', details: { response_errors } });
    expect(message).toContain('/f4 missing; and 2 more');
    expect(message).not.toContain('/f5');
  });

  it('when a 500 says nothing of its cause, then not_a_server_error points at the server log and at what a stub shows outside production', () => {
    const message = serverErrorMessage({ code: 'internal_error', message: 'Failed.', request_id: 'req_1' });
    expect(message).toMatch(/^500 \(internal_error: Failed\.\): the server failed on its own side, and its log says why/);
    expect(message).toContain('details.response_errors');
    // Another 5xx is not a failure of the server's own code: no guess about it.
    expect(responseFindings(contract, operation, answer(503, { code: 'service_unavailable', request_id: 'req_1' }))[0]?.message).toBe(
      '503 (service_unavailable: )',
    );
  });

  it('when the content type is not the declared one, then content_type_conformance', () => {
    expect(checksOf(answer(200, { id: 'thg_1', request_id: 'req_1' }, { 'content-type': 'text/html' }))).toEqual([
      'content_type_conformance',
    ]);
  });

  it('when the body breaks its schema, then response_schema_conformance', () => {
    expect(checksOf(answer(200, { request_id: 'req_1' }))).toEqual(['response_schema_conformance']);
  });

  it('when a declared header breaks its schema (an integer header that is not a number) or X-Request-Id is missing, then response_headers_conformance', () => {
    expect(checksOf(answer(200, { id: 'thg_1', request_id: 'req_1' }, { 'x-ratelimit-remaining': 'many' }))).toEqual([
      'response_headers_conformance',
    ]);
    const withoutId = answer(200, { id: 'thg_1', request_id: 'req_1' });
    delete withoutId.headers['x-request-id'];
    expect(checksOf(withoutId)).toEqual(['response_headers_conformance', 'request_id_conformance']);
  });

  it('when request_id differs from X-Request-Id, then request_id_conformance', () => {
    expect(checksOf(answer(200, { id: 'thg_1', request_id: 'req_2' }))).toEqual(['request_id_conformance']);
  });

  it('when a stub answers 501 not_implemented, then it is not a finding, unless its problem lacks what every error carries', () => {
    const stub = answer(501, { type: 'server_error', code: 'not_implemented', request_id: 'req_1' });
    expect(isNotImplemented(stub)).toBe(true);
    expect(responseFindings(contract, operation, stub)).toEqual([]);
    expect(checksOf({ ...stub, headers: { 'content-type': 'application/json', 'x-request-id': 'req_1' } })).toEqual([
      'content_type_conformance',
    ]);
    expect(isNotImplemented(answer(501, { code: 'internal_error', request_id: 'req_1' }))).toBe(false);
  });
});

describe('a refusal the kit expects', () => {
  /** A session whose server answers every request with `exchange`. */
  const sessionAnswering = (exchange: Exchange) => {
    const client: HttpClient = { send: async () => exchange, close: () => {} };
    return createSession(contract, client, 'svc_test_main');
  };
  const expectation = { status: [404], check: 'ignored_auth' as const, what: 'a thing', code: 'resource_not_found' };

  it('when the status and the problem code are the expected ones, then the check passes', async () => {
    const session = sessionAnswering(answer(404, { code: 'resource_not_found', request_id: 'req_1' }));
    expect(await session.call('getThing', {}, expectation)).toBeDefined();
    const [result] = session.results();
    expect(result).toMatchObject({ failures: [], passed: expect.arrayContaining(['ignored_auth']) });
  });

  it('when the status is right but the problem code is another, then the check fails naming both codes', async () => {
    const session = sessionAnswering(answer(404, { code: 'route_not_found', request_id: 'req_1' }));
    expect(await session.call('getThing', {}, expectation)).toBeUndefined();
    const [result] = session.results();
    expect(result?.outcome).toBe('fail');
    expect(result?.failures).toEqual([
      expect.objectContaining({ check: 'ignored_auth', message: expect.stringMatching(/resource_not_found.*route_not_found/) }),
    ]);
  });
});
