import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createFormFunnelClient,
  type Form,
  type FormFunnelClientOptions,
  FormFunnelError,
  type Problem,
  type Schema,
  unwrap,
} from '../../src/client/index.js';
import { created, FORM_ID, fakeFetch, ok, problem, REQUEST_ID, recordingSleep } from './fake-transport.js';

const API_KEY = 'svc_test_4eC39HqLyjWDarjtT1zdp7dc';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function clientWith(transport: ReturnType<typeof fakeFetch>, options: Partial<FormFunnelClientOptions> = {}) {
  const { sleep, delays } = recordingSleep();
  const client = createFormFunnelClient({ apiKey: API_KEY, fetch: transport.fetch, sleep, random: () => 1, ...options });
  return { client, delays };
}

/** What Node's fetch throws: a bare TypeError whose cause carries the code. */
const fetchFailed = (code: string, message: string) =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });

const getForm = (client: ReturnType<typeof createFormFunnelClient>) => client.GET('/forms/{id}', { params: { path: { id: FORM_ID } } });
const createForm = (client: ReturnType<typeof createFormFunnelClient>, headers?: Record<string, string>) =>
  client.POST('/forms', { body: { name: 'Demo request' }, ...(headers && { params: { header: headers } }) });
const resumeSubmission = (client: ReturnType<typeof createFormFunnelClient>) =>
  client.PATCH('/submissions/{id}', {
    params: { path: { id: 'sub_9pLk3JhG6fDs1AzX4cVb7NmQ' } },
    body: { answers: { gdpr: true, notes: null }, status: 'completed' },
  });
const renameForm = (client: ReturnType<typeof createFormFunnelClient>) =>
  client.PATCH('/forms/{id}', { params: { path: { id: FORM_ID } }, body: { name: 'Renamed' } });

describe('authentication', () => {
  it('when a request is sent, then it carries Authorization: Bearer <key> to the production base URL', async () => {
    const transport = fakeFetch(ok);
    await getForm(clientWith(transport).client);
    expect(transport.requests[0]?.headers.get('Authorization')).toBe(`Bearer ${API_KEY}`);
    expect(transport.requests[0]?.url).toBe(`https://api.form-funnel.example/v1/forms/${FORM_ID}`);
  });

  it.each([
    ['a trailing newline', `${API_KEY}\n`],
    ['a leading space', ` ${API_KEY}`],
    ['an inner space', 'svc_test_ abc'],
  ])('when the key has %s, then creating the client throws before any request', (_, apiKey) => {
    const transport = fakeFetch(ok);
    expect(() => createFormFunnelClient({ apiKey, fetch: transport.fetch })).toThrow(/whitespace/);
    expect(transport.requests).toHaveLength(0);
  });

  it('when the credential is a function, then each request carries the token it returns at that moment', async () => {
    const transport = fakeFetch(ok);
    let current = 'svc_oat_firstTokenFirstTokenFirstToken00';
    const { client } = clientWith(transport, { apiKey: async () => current });
    await getForm(client);
    current = 'svc_oat_refreshedTokenRefreshedToken00';
    await getForm(client);
    expect(transport.requests.map((request) => request.headers.get('Authorization'))).toEqual([
      'Bearer svc_oat_firstTokenFirstTokenFirstToken00',
      'Bearer svc_oat_refreshedTokenRefreshedToken00',
    ]);
  });

  it('when the credential function returns an unusable token, then the request fails before it is sent', async () => {
    const transport = fakeFetch(ok);
    const { client } = clientWith(transport, { apiKey: () => 'svc_oat_with a space' });
    await expect(getForm(client)).rejects.toThrow(/whitespace/);
    expect(transport.requests).toHaveLength(0);
  });

  it('when the key is rejected, then the error message does not echo the key', () => {
    expect(() => createFormFunnelClient({ apiKey: `${API_KEY} ` })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(API_KEY) }),
    );
  });

  it('when the key is empty, then creating the client throws', () => {
    expect(() => createFormFunnelClient({ apiKey: '' })).toThrow(/apiKey/);
  });
});

describe('idempotency keys', () => {
  it('when a POST has no Idempotency-Key, then a random UUID is added', async () => {
    const transport = fakeFetch(created);
    await createForm(clientWith(transport).client);
    expect(transport.requests[0]?.headers.get('Idempotency-Key')).toMatch(UUID);
  });

  it('when two POSTs are sent, then they get different keys', async () => {
    const transport = fakeFetch(created);
    const { client } = clientWith(transport);
    await createForm(client);
    await createForm(client);
    const [first, second] = transport.requests.map((r) => r.headers.get('Idempotency-Key'));
    expect(first).not.toBe(second);
  });

  it('when the caller sets an Idempotency-Key, then it is sent unchanged', async () => {
    const transport = fakeFetch(created);
    await createForm(clientWith(transport).client, { 'Idempotency-Key': 'order-4711' });
    expect(transport.requests[0]?.headers.get('Idempotency-Key')).toBe('order-4711');
  });

  it('when a GET is sent, then it has no Idempotency-Key', async () => {
    const transport = fakeFetch(ok);
    await getForm(clientWith(transport).client);
    expect(transport.requests[0]?.headers.has('Idempotency-Key')).toBe(false);
  });

  it('when a submission is resumed (PATCH /submissions/{id}), then a key is added; another PATCH gets none', async () => {
    const transport = fakeFetch(ok);
    const { client } = clientWith(transport);
    await resumeSubmission(client);
    await renameForm(client);
    expect(transport.requests[0]?.headers.get('Idempotency-Key')).toMatch(UUID);
    expect(transport.requests[1]?.headers.has('Idempotency-Key')).toBe(false);
  });

  it('when a resume gets a 503, then it is retried with the same key (the server replays it)', async () => {
    const transport = fakeFetch(problem(503, 'service_unavailable', 'server_error'), ok);
    await resumeSubmission(clientWith(transport).client);
    expect(transport.requests).toHaveLength(2);
    expect(new Set(transport.requests.map((r) => r.headers.get('Idempotency-Key'))).size).toBe(1);
  });

  it('when a POST is retried, then every attempt carries the same key and the same body', async () => {
    const transport = fakeFetch(problem(503, 'service_unavailable', 'server_error'), new TypeError('fetch failed'), created);
    const { data } = await createForm(clientWith(transport).client);
    expect(data?.id).toBe(FORM_ID);
    expect(transport.requests).toHaveLength(3);
    const keys = new Set(transport.requests.map((r) => r.headers.get('Idempotency-Key')));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(UUID);
    expect(new Set(transport.requests.map((r) => r.body))).toEqual(new Set(['{"name":"Demo request"}']));
  });
});

describe('retries', () => {
  it('when a 429 carries Retry-After: 2, then the client waits 2 s and returns the retry’s success', async () => {
    const transport = fakeFetch(problem(429, 'rate_limited', 'rate_limit_error', { 'Retry-After': '2' }), ok);
    const { client, delays } = clientWith(transport);
    const { data, response } = await getForm(client);
    expect(delays).toEqual([2000]);
    expect(response.status).toBe(200);
    expect(data?.id).toBe(FORM_ID);
  });

  it('when a PATCH gets a 429, then it is retried (the server did nothing)', async () => {
    const transport = fakeFetch(problem(429, 'rate_limited', 'rate_limit_error', { 'Retry-After': '1' }), ok);
    const { client, delays } = clientWith(transport);
    const { response } = await renameForm(client);
    expect(response.status).toBe(200);
    expect(transport.requests.map((r) => r.method)).toEqual(['PATCH', 'PATCH']);
    expect(delays).toEqual([1000]);
  });

  it('when Retry-After is longer than maxRetryAfterSeconds, then the 429 is returned without waiting', async () => {
    const transport = fakeFetch(problem(429, 'rate_limited', 'rate_limit_error', { 'Retry-After': '120' }), ok);
    const { client, delays } = clientWith(transport, { maxRetryAfterSeconds: 60 });
    const { error, response } = await getForm(client);
    expect(response.status).toBe(429);
    expect(error?.code).toBe('rate_limited');
    expect(delays).toEqual([]);
    expect(transport.requests).toHaveLength(1);
  });

  it('when a GET gets a 503, then it is retried after a jittered backoff', async () => {
    const transport = fakeFetch(problem(503, 'service_unavailable', 'server_error'), ok);
    const { client, delays } = clientWith(transport, { random: () => 0.5, initialRetryDelayMs: 400 });
    const { response } = await getForm(client);
    expect(response.status).toBe(200);
    expect(delays).toEqual([200]);
  });

  it('when a DELETE hits a network error, then it is retried', async () => {
    const transport = fakeFetch(new TypeError('fetch failed'), ok);
    const { client } = clientWith(transport);
    const { response } = await client.DELETE('/forms/{id}', { params: { path: { id: FORM_ID } } });
    expect(response.status).toBe(200);
    expect(transport.requests).toHaveLength(2);
  });

  it('when a PATCH gets a 500, then it is not retried and the error is returned', async () => {
    const transport = fakeFetch(problem(500, 'internal_error', 'server_error'), ok);
    const { client, delays } = clientWith(transport);
    const { error, response } = await renameForm(client);
    expect(response.status).toBe(500);
    expect(error?.code).toBe('internal_error');
    expect(transport.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('when a PATCH hits a network error, then a network FormFunnelError is thrown without a retry', async () => {
    const transport = fakeFetch(new TypeError('fetch failed'), ok);
    await expect(renameForm(clientWith(transport).client)).rejects.toThrow(
      expect.objectContaining({ name: 'FormFunnelError', kind: 'network', message: expect.stringContaining('fetch failed') }),
    );
    expect(transport.requests).toHaveLength(1);
  });

  it('when every attempt fails, then the client stops after maxRetries retries with growing backoff', async () => {
    const transport = fakeFetch(problem(503, 'service_unavailable', 'server_error'));
    const { client, delays } = clientWith(transport, { maxRetries: 4, initialRetryDelayMs: 100, maxRetryDelayMs: 500 });
    const { response } = await getForm(client);
    expect(response.status).toBe(503);
    expect(transport.requests).toHaveLength(5);
    expect(delays).toEqual([100, 200, 400, 500]); // random() = 1: the top of each range, capped
  });

  it('when every attempt hits a network error, then the last one is thrown as a network FormFunnelError after maxRetries retries', async () => {
    const transport = fakeFetch(fetchFailed('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:8443'));
    const thrown = await getForm(clientWith(transport, { maxRetries: 2 }).client).catch((error: unknown) => error);
    expect(transport.requests).toHaveLength(3);
    expect(thrown).toBeInstanceOf(FormFunnelError);
    expect(thrown).toMatchObject({
      kind: 'network',
      status: 0,
      code: undefined,
      networkCode: 'ECONNREFUSED',
      message: `Form-Funnel API could not be reached (GET https://api.form-funnel.example/v1/forms/${FORM_ID}): connect ECONNREFUSED 127.0.0.1:8443`,
    });
    expect((thrown as FormFunnelError).cause).toBeInstanceOf(TypeError);
  });

  it.each([
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'CERT_HAS_EXPIRED',
    'ERR_TLS_CERT_ALTNAME_INVALID',
  ])(
    'when the certificate is rejected (%s), then a network FormFunnelError is thrown after one attempt and names the fix',
    async (code) => {
      const transport = fakeFetch(fetchFailed(code, 'certificate verification failed'), ok);
      const { client, delays } = clientWith(transport);
      const thrown = await getForm(client).catch((error: unknown) => error);
      expect(transport.requests).toHaveLength(1);
      expect(delays).toEqual([]);
      expect(thrown).toMatchObject({ name: 'FormFunnelError', kind: 'network', networkCode: code });
      expect((thrown as Error).message).toContain(`TLS certificate was rejected (${code}`);
      expect((thrown as Error).message).toContain('NODE_EXTRA_CA_CERTS');
    },
  );

  it('when node:https fails with a code on the error itself (a custom fetch), then that code is read', async () => {
    const error = Object.assign(new Error('getaddrinfo ENOTFOUND api.example'), { code: 'ENOTFOUND' });
    const transport = fakeFetch(error);
    const thrown = await getForm(clientWith(transport, { maxRetries: 0 }).client).catch((caught: unknown) => caught);
    expect(thrown).toMatchObject({ kind: 'network', networkCode: 'ENOTFOUND', cause: error });
  });

  it('when maxRetries is 0, then a 503 is returned after one attempt', async () => {
    const transport = fakeFetch(problem(503, 'service_unavailable', 'server_error'), ok);
    const { response } = await getForm(clientWith(transport, { maxRetries: 0 }).client);
    expect(response.status).toBe(503);
    expect(transport.requests).toHaveLength(1);
  });

  it('when a 4xx other than 429 comes back, then it is not retried', async () => {
    const transport = fakeFetch(problem(404, 'resource_not_found', 'not_found'), ok);
    const { response } = await getForm(clientWith(transport).client);
    expect(response.status).toBe(404);
    expect(transport.requests).toHaveLength(1);
  });

  it('when the caller aborts during the backoff, then the client stops retrying', async () => {
    const transport = fakeFetch(problem(503, 'service_unavailable', 'server_error'), ok);
    const controller = new AbortController();
    const client = createFormFunnelClient({
      apiKey: API_KEY,
      fetch: transport.fetch,
      initialRetryDelayMs: 60_000,
      random: () => 1,
    });
    const pending = client.GET('/forms/{id}', { params: { path: { id: FORM_ID } }, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    expect(transport.requests).toHaveLength(1);
  });

  it('when maxRetries is negative, then creating the client throws', () => {
    expect(() => createFormFunnelClient({ apiKey: API_KEY, maxRetries: -1 })).toThrow(RangeError);
  });
});

describe('errors and unwrap', () => {
  it('when the API answers with a problem, then unwrap throws a FormFunnelError with its fields', async () => {
    const transport = fakeFetch(problem(404, 'resource_not_found', 'not_found'));
    const result = await getForm(clientWith(transport).client);
    let thrown: unknown;
    try {
      unwrap(result);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FormFunnelError);
    expect(thrown).toMatchObject({
      name: 'FormFunnelError',
      status: 404,
      type: 'not_found',
      code: 'resource_not_found',
      message: 'resource_not_found happened',
      requestId: REQUEST_ID,
    });
  });

  it('when a validation problem has details, then they are on the error', async () => {
    const details = { errors: [{ location: 'body', pointer: '/name', code: 'required', message: 'name is required' }] };
    const transport = fakeFetch(
      () =>
        new Response(
          JSON.stringify({
            type: 'validation_error',
            code: 'invalid_parameters',
            status: 400,
            title: 'Invalid',
            message: 'The body does not match the schema.',
            request_id: REQUEST_ID,
            details,
          }),
          { status: 400, headers: { 'Content-Type': 'application/problem+json' } },
        ),
    );
    const result = await createForm(clientWith(transport).client);
    expect(() => unwrap(result)).toThrow(expect.objectContaining({ code: 'invalid_parameters', details, requestId: REQUEST_ID }));
  });

  it('when the error body is not a problem (a proxy page), then the error has the status and the X-Request-Id header', async () => {
    const transport = fakeFetch(
      () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway', headers: { 'X-Request-Id': REQUEST_ID } }),
    );
    // Retries are off so that the single 502 is what unwrap sees.
    const result = await getForm(clientWith(transport, { maxRetries: 0 }).client);
    expect(() => unwrap(result)).toThrow(
      expect.objectContaining({
        status: 502,
        code: undefined,
        requestId: REQUEST_ID,
        kind: 'api',
        message:
          'Form-Funnel API answered HTTP 502 Bad Gateway without a problem body (text/plain;charset=UTF-8): <html>Bad gateway</html>',
      }),
    );
  });

  it('when a proxy answers with a long HTML page, then the message keeps its status, content type and the first 200 characters', async () => {
    const page = `<html><body>${'x'.repeat(500)}</body></html>`;
    const transport = fakeFetch(() => new Response(page, { status: 503, headers: { 'Content-Type': 'text/html; charset=utf-8' } }));
    const result = await getForm(clientWith(transport, { maxRetries: 0 }).client);
    expect(() => unwrap(result)).toThrow(
      expect.objectContaining({
        status: 503,
        message: `Form-Funnel API answered HTTP 503 without a problem body (text/html; charset=utf-8): ${page.slice(0, 200)}…`,
      }),
    );
  });

  it('when a mock answers with its own problem shape (no code), then its title and detail stay in the message', async () => {
    const prismError = {
      type: 'https://stoplight.io/prism/errors#NO_PATH_MATCHED_ERROR',
      title: 'Route not resolved, no path matched',
      status: 404,
      detail: "The route /v1/forms/form_x hasn't been found in the specification file",
    };
    const transport = fakeFetch(
      () => new Response(JSON.stringify(prismError), { status: 404, headers: { 'Content-Type': 'application/problem+json' } }),
    );
    const thrown = await getForm(clientWith(transport).client)
      .then(unwrap)
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(FormFunnelError);
    expect(thrown).toMatchObject({ kind: 'api', status: 404, code: undefined, problem: undefined });
    expect((thrown as FormFunnelError).message).toBe(
      `Form-Funnel API answered HTTP 404 without a problem body (application/problem+json): ${prismError.title}: ${prismError.detail}`,
    );
  });

  it('when the response is 2xx, then unwrap returns the typed data', async () => {
    const transport = fakeFetch(ok);
    const form = unwrap(await getForm(clientWith(transport).client));
    expect(form.id).toBe(FORM_ID);
    // unwrap yields exactly openapi-fetch's success data, minus the `undefined` of the error branch…
    type SuccessData = NonNullable<Awaited<ReturnType<typeof getForm>>['data']>;
    expectTypeOf(form).toEqualTypeOf<SuccessData>();
    expectTypeOf(form).not.toBeNullable();
    // …which is the contract's Form plus the envelope's request_id.
    expectTypeOf(form).toExtend<Form>();
    expectTypeOf(form.request_id).toEqualTypeOf<string>();
    expectTypeOf(form.steps).toEqualTypeOf<Form['steps']>();
  });

  it('when unwrap is not used, then openapi-fetch’s { data, error, response } stays typed', async () => {
    const transport = fakeFetch(problem(409, 'slug_taken', 'conflict_error'));
    const { data, error, response } = await createForm(clientWith(transport).client);
    expect(data).toBeUndefined();
    expect(response.status).toBe(409);
    expect(error?.code).toBe('slug_taken');
    // openapi-fetch's error is the generated Problem, which the client's Problem (its code open) takes as it is.
    expectTypeOf(error).toEqualTypeOf<Schema<'Problem'> | undefined>();
    expectTypeOf(error).toExtend<Problem | undefined>();
  });
});
