/**
 * Bad input of every kind gets one problem+json answer with a code a program can switch on, the headers
 * every response carries, and nothing of the server's insides.
 */
import https from 'node:https';
import { beforeAll, describe, expect, it } from 'vitest';
import { forbidden } from '../../src/domain/errors.js';
import { handlers } from '../../src/http/handlers/index.js';
import { formBody } from '../support/factories.js';
import { createTestApi } from '../support/harness.js';
import {
  absentId,
  expectEnvelopeHeaders,
  expectProblem,
  generousLimits,
  internals,
  issuesOf,
  useWatchedApi,
  watchedApi,
} from '../support/http-checks.js';

const api = useWatchedApi({ rateLimits: generousLimits });
let formId: string;

beforeAll(async () => {
  const res = await api.call('post', '/v1/forms').send(formBody('Errors fixture'));
  expect(res.status).toBe(201);
  formId = res.body.id;
});

describe('request bodies', () => {
  it('when the body is not valid JSON, then 400 invalid_json', async () => {
    const res = await api.call('post', '/v1/forms').set('Content-Type', 'application/json').send('{"name": "Broken",');
    expectProblem(res, 400, 'validation_error', 'invalid_json');
  });

  it('when the body is sent as another media type, then 415 unsupported_media_type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await api.call('post', '/v1/forms').set('Content-Type', type).send('name=Plain');
      expectProblem(res, 415, 'invalid_request', 'unsupported_media_type');
    }
  });

  it('when the body has a field the schema does not know, then 400 naming it with a JSON Pointer', async () => {
    const res = await api.call('post', '/v1/forms').send({ name: 'Extra', colour: 'red' });
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['body /colour additional_property']);
  });

  it('when several values are wrong, then every issue is listed, each with its pointer', async () => {
    const res = await api.call('post', '/v1/forms').send({ name: '', slug: 'Not A Slug', steps: 'none', extra: 1 });
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    const issues = issuesOf(res);
    expect(issues).toEqual(expect.arrayContaining(['body /extra additional_property', 'body /steps type']));
    expect(issues.some((issue) => issue.startsWith('body /name '))).toBe(true);
    expect(issues.some((issue) => issue.startsWith('body /slug '))).toBe(true);
  });

  it('when a nested value is wrong, then the pointer goes all the way down', async () => {
    const body = formBody('Nested');
    (body.steps as Array<{ fields: Array<Record<string, unknown>> }>)[1]!.fields[0]!.ref = 'Bad Ref';
    const res = await api.call('post', '/v1/forms').send(body);
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toContain('body /steps/1/fields/0/ref pattern');
  });

  it('when a property is named like an annotation (a title, a description), then the schema still judges it', async () => {
    // The validator compiles a copy of the document without its annotations (validation.ts): a member of that name
    // under `properties` is data, not an annotation, and must keep its schema.
    const body = formBody('Annotation names');
    const steps = body.steps as Array<{ title: unknown; fields: Array<Record<string, unknown>> }>;
    steps[0]!.title = '';
    steps[1]!.fields[0]!.description = 'x'.repeat(2001);
    const res = await api.call('post', '/v1/forms').send(body);
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(
      expect.arrayContaining(['body /steps/0/title min_length', 'body /steps/1/fields/0/description max_length']),
    );
    steps[0]!.title = 'Contact';
    steps[1]!.fields[0]!.description = 'x'.repeat(2000);
    expect((await api.call('post', '/v1/forms').send(body)).status).toBe(201);
  });

  it('when a required JSON body is empty, then 400', async () => {
    const res = await api.call('post', '/v1/forms').set('Content-Type', 'application/json');
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
  });

  it('when the body is over 1 MiB, then 413 payload_too_large', async () => {
    const res = await api.call('post', '/v1/forms').send({ name: 'Big', slug: 'big', steps: [], padding: 'x'.repeat(1024 * 1024) });
    expectProblem(res, 413, 'invalid_request', 'payload_too_large');
    expect(res.body.details).toEqual({ max_body_bytes: 1048576 });
  });

  it('when an over-1 MiB body is streamed without a Content-Length, then 413 payload_too_large too', async () => {
    const { hostname, port } = new URL(api.baseUrl);
    const res = await new Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }>(
      (resolve, reject) => {
        const req = https.request(
          {
            hostname,
            port,
            path: '/v1/forms',
            method: 'POST',
            ca: api.certificate,
            servername: 'localhost',
            headers: {
              Authorization: `Bearer ${api.workspace.live_admin_key}`,
              'Content-Type': 'application/json',
              'Transfer-Encoding': 'chunked',
            },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () =>
              resolve({ status: response.statusCode!, headers: response.headers, body: JSON.parse(text) as Record<string, unknown> }),
            );
          },
        );
        req.on('error', reject);
        req.write('{"name":"Streamed","padding":"');
        for (let i = 0; i < 18; i++) req.write('y'.repeat(64 * 1024));
        req.end('"}');
      },
    );
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ type: 'invalid_request', code: 'payload_too_large', request_id: res.headers['x-request-id'] });
  });

  it('when a body of just under 1 MiB is sent, then it is parsed (and judged by the schema)', async () => {
    const res = await api.call('post', '/v1/forms').send({ name: 'Almost big', padding: 'z'.repeat(1024 * 1024 - 100) });
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['body /padding additional_property']);
  });
});

describe('query parameters', () => {
  it('when a query parameter is unknown, then 400 naming it', async () => {
    const res = await api.call('get', '/v1/forms?colour=red');
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['query /colour additional_property']);
  });

  it('when an operation without query parameters gets one, then 400', async () => {
    const res = await api.call('get', '/v1/me?verbose=1');
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['query /verbose additional_property']);
  });

  it.each([
    ['0', 'minimum'],
    ['101', 'maximum'],
    ['abc', 'type'],
    ['-1', 'minimum'],
    ['2.5', 'type'],
  ])('when limit=%s, then 400 with a %s issue on /limit', async (limit, code) => {
    const res = await api.call('get', `/v1/forms?limit=${limit}`);
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual([`query /limit ${code}`]);
  });

  it('when limit is 1 or 100, then it is accepted', async () => {
    expect((await api.call('get', '/v1/forms?limit=1')).status).toBe(200);
    expect((await api.call('get', '/v1/forms?limit=100')).status).toBe(200);
  });

  it('when both starting_after and ending_before are given, then 400 mutually_exclusive', async () => {
    const res = await api.call('get', `/v1/forms?starting_after=${formId}&ending_before=${formId}`);
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['query /ending_before mutually_exclusive']);
  });

  it('when a cursor names no object of the list, then 400 invalid_cursor', async () => {
    const res = await api.call('get', `/v1/forms?starting_after=${absentId('form')}`);
    expectProblem(res, 400, 'validation_error', 'invalid_cursor');
    expect(issuesOf(res)).toEqual(['query /starting_after not_found']);
  });

  it('when a cursor is not an id at all, then 400 on the cursor', async () => {
    const res = await api.call('get', '/v1/forms?ending_before=not-an-id');
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['query /ending_before pattern']);
  });
});

describe('paths and methods', () => {
  it('when a path differs from a route only in case, then it is not that route, for the validator either', async () => {
    // A new app: the first request of an operation is the one whose route the validator looks up itself.
    const fresh = await createTestApi({ rateLimits: generousLimits });
    try {
      const upper = await fresh.call('get', '/v1/submissions/EXPORT');
      expectProblem(upper, 400, 'validation_error', 'invalid_parameters');
      expect(issuesOf(upper)).toContain('path /id pattern');
      // Later requests of the operation are checked against its own parameters, not the export's.
      expect(issuesOf(await fresh.call('get', '/v1/submissions/not-an-id'))).toContain('path /id pattern');
      expectProblem(await fresh.call('get', '/v1/FORMS'), 404, 'not_found', 'route_not_found');
      expectProblem(await fresh.call('get', '/V1/forms'), 404, 'not_found', 'route_not_found');
    } finally {
      await fresh.close();
    }
  });

  it('when the same path parameters come again, then a pass is remembered but a refusal never is, and a query is always checked', async () => {
    // The validator's verdict on an operation that takes only its path is remembered once it passed (validator-stages.ts).
    for (let round = 0; round < 2; round++) {
      expect((await api.call('get', `/v1/forms/${formId}`)).status).toBe(200);
      expectProblem(await api.call('get', '/v1/forms/form_tooShort'), 400, 'validation_error', 'invalid_parameters');
      const withQuery = await api.call('get', `/v1/forms/${formId}?expand=steps`);
      expectProblem(withQuery, 400, 'validation_error', 'invalid_parameters');
      expect(issuesOf(withQuery)).toEqual(['query /expand additional_property']);
      // Two parameters: the pair is what passed, not either value alone.
      expect((await api.call('get', `/v1/forms/${formId}/versions/1`)).status).toBe(200);
      const version = await api.call('get', `/v1/forms/${formId}/versions/0`);
      expectProblem(version, 400, 'validation_error', 'invalid_parameters');
      expect(issuesOf(version)).toEqual(['path /version minimum']);
      expectProblem(await api.call('get', `/v1/forms/${formId}/versions/1e0`), 400, 'validation_error', 'invalid_parameters');
    }
  });

  it.each([
    ['/v1/forms/not-an-id', '/id'],
    ['/v1/forms/form_tooShort', '/id'],
    [`/v1/forms/fld_${'A'.repeat(24)}`, '/id'],
    ['/v1/folders/form_AAAAAAAAAAAAAAAAAAAAAAAA', '/id'],
    [`/v1/forms/${'form_AAAAAAAAAAAAAAAAAAAAAAAA'}/versions/0`, '/version'],
    [`/v1/forms/${'form_AAAAAAAAAAAAAAAAAAAAAAAA'}/versions/one`, '/version'],
  ])('when the path has a malformed id (%s), then 400 on the path parameter', async (path, pointer) => {
    const res = await api.call('get', path);
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res).every((issue) => issue.startsWith(`path ${pointer} `))).toBe(true);
    expect(issuesOf(res).length).toBeGreaterThan(0);
  });

  it('when a well-formed id names nothing, then 404 resource_not_found', async () => {
    expectProblem(await api.call('get', `/v1/forms/${absentId('form')}`), 404, 'not_found', 'resource_not_found');
    expectProblem(await api.call('get', `/v1/folders/${absentId('fld')}`), 404, 'not_found', 'resource_not_found');
    expectProblem(await api.call('get', `/v1/api_keys/${absentId('key')}`), 404, 'not_found', 'resource_not_found');
  });

  it('when a form is sent with PUT, then 405 method_not_allowed with an Allow header, and the form is unchanged', async () => {
    const res = await api.call('put', `/v1/forms/${formId}`).send({ name: 'Replaced' });
    expectProblem(res, 405, 'invalid_request', 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, PATCH, DELETE');
    expect(res.body.details).toEqual({ allowed_methods: ['GET', 'PATCH', 'DELETE'] });
    expect((await api.call('get', `/v1/forms/${formId}`)).body.name).toBe('Errors fixture');
  });

  it('when a collection gets a method it does not have, then 405 listing the ones it has', async () => {
    const res = await api.call('delete', '/v1/forms');
    expectProblem(res, 405, 'invalid_request', 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, POST');
    const put = await api.call('put', '/v1/folders');
    expectProblem(put, 405, 'invalid_request', 'method_not_allowed');
  });

  it('when the method is not allowed and no key is sent, then 405 still (the path is public knowledge)', async () => {
    const res = await api.call('put', `/v1/forms/${formId}`, null);
    expectProblem(res, 405, 'invalid_request', 'method_not_allowed');
  });

  it.each(['/v1/nothing-here', '/v1/forms/form_AAAAAAAAAAAAAAAAAAAAAAAA/extra', '/v2/forms', '/', '/v1'])(
    'when the path %s matches no operation, then 404 route_not_found',
    async (path) => {
      const res = await api.call('get', path);
      expectProblem(res, 404, 'not_found', 'route_not_found');
    },
  );
});

describe('every response carries X-Request-Id and rate-limit headers', () => {
  it.each([
    ['200', () => api.call('get', '/v1/forms')],
    ['201', () => api.call('post', '/v1/folders').send({ name: 'Headers' })],
    ['400', () => api.call('get', '/v1/forms?limit=0')],
    ['401', () => api.call('get', '/v1/forms', null)],
    ['403', () => api.call('patch', `/v1/forms/${formId}`, api.workspace.test_admin_key).send({ name: 'x' })],
    ['404 (resource)', () => api.call('get', `/v1/forms/${absentId('form')}`)],
    ['404 (route)', () => api.call('get', '/v1/unknown')],
    ['405', () => api.call('put', `/v1/forms/${formId}`)],
    ['409', () => api.call('post', '/v1/forms').send({ name: 'Dup', slug: 'errors-fixture' })],
    ['413', () => api.call('post', '/v1/forms').send({ name: 'x'.repeat(1024 * 1024 + 1) })],
    ['415', () => api.call('post', '/v1/forms').set('Content-Type', 'text/plain').send('x')],
    [
      '422',
      () => api.call('post', '/v1/api_keys').send({ name: 'k', environment: 'live', scope: 'read', expires_at: '2000-01-01T00:00:00Z' }),
    ],
  ] as const)('when the answer is %s, then the headers are there and X-Request-Id equals request_id', async (label, send) => {
    const res = await send();
    expect(String(res.status)).toBe(label.split(' ')[0]);
    expectEnvelopeHeaders(res);
  });

  it('when a client sends its own X-Request-Id, then the server still makes its own', async () => {
    const res = await api.call('get', '/v1/me').set('X-Request-Id', 'req_AAAAAAAAAAAAAAAAAAAAAAAA');
    expect(res.headers['x-request-id']).not.toBe('req_AAAAAAAAAAAAAAAAAAAAAAAA');
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
  });

  it('when two requests are made, then they get different request ids', async () => {
    const [a, b] = await Promise.all([api.call('get', '/v1/me'), api.call('get', '/v1/me')]);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});

describe('no internals in responses', () => {
  it('when the database fails, then 500 internal_error without SQL, stack or paths', async () => {
    const broken = await watchedApi();
    try {
      await broken.rows('ALTER TABLE folders RENAME TO folders_gone');
      const res = await broken.call('get', '/v1/folders');
      expectProblem(res, 500, 'server_error', 'internal_error');
      expect(JSON.stringify(res.body)).not.toMatch(internals);
      expect(JSON.stringify(res.body)).not.toMatch(/folders|sqlite|postgres/i);
      broken.expectNoInternals();
    } finally {
      await broken.close();
    }
  });

  it('when a handler throws an unexpected error, then 500 with the generic message only', async () => {
    const broken = await watchedApi({
      handlers: {
        ...handlers,
        getMe: async () => {
          throw new Error('SELECT secret_hash FROM api_keys WHERE id = 1 at /srv/form-funnel/src/secret.ts:12:3');
        },
      },
    });
    try {
      const res = await broken.call('get', '/v1/me');
      expectProblem(res, 500, 'server_error', 'internal_error');
      expect(JSON.stringify(res.body)).not.toMatch(/secret_hash|SELECT|\.ts:/);
      broken.expectNoInternals();
    } finally {
      await broken.close();
    }
  });

  it('when a handler answers with a body the contract does not allow, then 500 (responses are validated)', async () => {
    const broken = await watchedApi({
      handlers: {
        ...handlers,
        getMe: (async () => ({ status: 200, body: { object: 'me', id: 'not-a-key-id' } })) as unknown as typeof handlers.getMe,
      },
    });
    try {
      const res = await broken.call('get', '/v1/me');
      expectProblem(res, 500, 'server_error', 'internal_error');
      broken.expectNoInternals();
    } finally {
      await broken.close();
    }
  });

  it('when a read that passed validation is answered again with a body the contract does not allow, then 500 each time', async () => {
    let answers = 0;
    const broken = await watchedApi({
      handlers: {
        ...handlers,
        getMe: (async (input) => {
          const valid = await handlers.getMe(input);
          answers += 1;
          // Valid, valid, broken, broken, valid: a body that passed once says nothing about a different one.
          return answers === 3 || answers === 4 ? { ...valid, body: { ...valid.body, id: 'not-a-key-id' } } : valid;
        }) as typeof handlers.getMe,
      },
    });
    try {
      const statuses = [];
      for (let call = 0; call < 5; call++) {
        const res = await broken.call('get', '/v1/me');
        statuses.push(res.status);
        if (res.status === 500) expectProblem(res, 500, 'server_error', 'internal_error');
        else expectEnvelopeHeaders(res);
      }
      expect(statuses).toEqual([200, 200, 500, 500, 200]);
      broken.expectNoInternals();
    } finally {
      await broken.close();
    }
  });

  it('when the same read is answered twice, then the bodies differ only in request_id, each equal to its X-Request-Id', async () => {
    const [first, second] = [await api.call('get', `/v1/forms/${formId}`), await api.call('get', `/v1/forms/${formId}`)];
    for (const res of [first, second]) {
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expectEnvelopeHeaders(res);
    }
    expect(second.body.request_id).not.toBe(first.body.request_id);
    expect(second.text).toBe(first.text.replace(first.body.request_id, second.body.request_id));
  });

  it('when a handler throws an application error, then its status and code are kept', async () => {
    const broken = await watchedApi({
      handlers: {
        ...handlers,
        getMe: async () => {
          throw forbidden('live_resource', 'Not from the sandbox.');
        },
      },
    });
    try {
      expectProblem(await broken.call('get', '/v1/me'), 403, 'permission_error', 'live_resource');
    } finally {
      await broken.close();
    }
  });
});
