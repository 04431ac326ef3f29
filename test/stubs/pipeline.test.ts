/**
 * The stub project's pipeline in process (the template's buildApp, with a key lookup of the test's own): what a
 * generated server answers before any handler runs, for the cases a default project cannot show, since its
 * placeholder key lookup gives every key the admin scope.
 */
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleContract } from '../../src/stubs/contract-source.js';
import { buildApp } from '../../src/stubs/template/src/app.js';
import type { ApiKey } from '../../src/stubs/template/src/auth.js';
import type { OpenApiDocument } from '../../src/stubs/template/src/contract.js';
import { type Handlers, notImplemented, type OperationId } from '../../src/stubs/template/src/handler-types.js';

const keys: Record<string, ApiKey> = {
  svc_test_reader: { id: 'key_000000000000000000000001', scope: 'read', environment: 'test' },
  svc_test_writer: { id: 'key_000000000000000000000002', scope: 'read_write', environment: 'test' },
};
const publishable = `svc_pub_test_${'p'.repeat(24)}`;
const publishableKeys: Record<string, ApiKey> = {
  [publishable]: { id: 'pk_000000000000000000000001', scope: 'read_write', environment: 'test' },
};

/** Every operation not implemented, as in a freshly generated project. */
const stubs = new Proxy({} as Handlers, { get: (_target, operationId) => async () => notImplemented(operationId as OperationId) });

let app: ReturnType<typeof buildApp>;
let document: OpenApiDocument;
beforeAll(async () => {
  document = await bundleContract();
  app = buildApp({
    handlers: stubs,
    document,
    lookUpKey: async (secret) => keys[secret],
    lookUpPublishableKey: async (value) => publishableKeys[value],
    logError: () => {},
  });
});

describe('the stub pipeline', () => {
  it('when a key is below the operation’s minimum scope, then 403 insufficient_scope naming the scope', async () => {
    const response = await request(app).post('/v1/forms').set('Authorization', 'Bearer svc_test_reader').send({ name: 'Demo' });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({
      type: 'permission_error',
      code: 'insufficient_scope',
      request_id: response.headers['x-request-id'],
    });
    expect(response.body.message).toContain('read_write');
  });

  it('when a key meets the minimum scope, then the request reaches the handler', async () => {
    const reading = await request(app).get('/v1/forms').set('Authorization', 'Bearer svc_test_reader');
    expect(reading.status).toBe(501);
    const writing = await request(app).post('/v1/forms').set('Authorization', 'Bearer svc_test_writer').send({ name: 'Demo' });
    expect(writing.status).toBe(501);
    const admin = await request(app).get('/v1/api_keys').set('Authorization', 'Bearer svc_test_writer');
    expect(admin.status).toBe(403);
  });

  it('when the key lookup does not know the key, then 401 invalid_api_key', async () => {
    const response = await request(app).get('/v1/me').set('Authorization', 'Bearer svc_test_unknown');
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('invalid_api_key');
  });

  it('when a public operation gets a publishable key, then the request reaches the handler', async () => {
    const response = await request(app).get('/v1/public/forms/form_2kTz9QwErTy7UiOp4AsDfGhJ').set('Authorization', `Bearer ${publishable}`);
    expect(response.status).toBe(501);
  });

  it('when a public operation gets a secret key, then 403 secret_key_not_allowed', async () => {
    const response = await request(app)
      .get('/v1/public/forms/form_2kTz9QwErTy7UiOp4AsDfGhJ')
      .set('Authorization', 'Bearer svc_test_writer');
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ type: 'permission_error', code: 'secret_key_not_allowed' });
  });

  it('when another operation gets a publishable key, then 403 publishable_key_not_allowed', async () => {
    const response = await request(app).get('/v1/me').set('Authorization', `Bearer ${publishable}`);
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ type: 'permission_error', code: 'publishable_key_not_allowed' });
  });

  it('when the publishable key lookup does not know the key, then 401 invalid_api_key', async () => {
    const response = await request(app)
      .get('/v1/public/forms/form_2kTz9QwErTy7UiOp4AsDfGhJ')
      .set('Authorization', 'Bearer svc_pub_test_unknown');
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('invalid_api_key');
  });

  it('when the OAuth token request is invalid, then the problem carries the RFC 6749 error members its schema requires', async () => {
    const response = await request(app).post('/v1/oauth/token').type('form').send({ grant_type: 'refresh_token' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_parameters', error: 'invalid_request' });
    expect(response.body.error_description).toBe(response.body.message);
  });

  it('when a handler runs, then it gets the path and query parameters as the contract types them', async () => {
    const seen: unknown[] = [];
    const recording = new Proxy({} as Handlers, {
      get: (_target, operationId) => async (input: { params: unknown; query: unknown }) => {
        seen.push({ operationId, params: input.params, query: input.query });
        return notImplemented(operationId as OperationId);
      },
    });
    const recorded = buildApp({ handlers: recording, document, lookUpKey: async (secret) => keys[secret] });
    await request(recorded).get('/v1/forms/form_2kTz9QwErTy7UiOp4AsDfGhJ/versions/3?').set('Authorization', 'Bearer svc_test_reader');
    await request(recorded).get('/v1/forms?limit=5').set('Authorization', 'Bearer svc_test_reader');
    expect(seen).toEqual([
      { operationId: 'getFormVersion', params: { id: 'form_2kTz9QwErTy7UiOp4AsDfGhJ', version: 3 }, query: {} },
      { operationId: 'listForms', params: {}, query: { limit: 5 } },
    ]);
  });

  it('when a request is sent as text, then 415 unsupported_media_type', async () => {
    const response = await request(app).post('/v1/forms').set('Authorization', 'Bearer svc_test_writer').type('text/plain').send('Demo');
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ type: 'invalid_request', code: 'unsupported_media_type' });
  });
});

describe('a handler answer that breaks the contract', () => {
  /** getFolder answers a folder without its id, and naming itself a form. */
  const broken = new Proxy({} as Handlers, {
    get: (_target, operationId) => async () =>
      operationId === 'getFolder' ? { status: 200, body: { object: 'form' } } : notImplemented(operationId as OperationId),
  });
  const appIn = (nodeEnv: string | undefined) => {
    const before = process.env.NODE_ENV;
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    try {
      return buildApp({ handlers: broken, document, lookUpKey: async (secret) => keys[secret], logError: () => {} });
    } finally {
      process.env.NODE_ENV = before;
    }
  };
  const getFolder = (built: ReturnType<typeof buildApp>) =>
    request(built).get('/v1/folders/fld_2kTz9QwErTy7UiOp4AsDfGhJ').set('Authorization', 'Bearer svc_test_reader');

  it.each([
    ['unset', undefined],
    ['development', 'development'],
  ])(
    'when NODE_ENV is %s, then the 500 internal_error lists what the response validation found in details.response_errors',
    async (_case, nodeEnv) => {
      const response = await getFolder(appIn(nodeEnv));
      expect(response.status).toBe(500);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({
        type: 'server_error',
        code: 'internal_error',
        request_id: response.headers['x-request-id'],
      });
      expect(response.body.details.response_errors).toEqual(
        expect.arrayContaining([
          { pointer: '/id', code: 'required', message: "must have required property 'id'" },
          { pointer: '/object', code: 'const', message: 'must be equal to constant' },
        ]),
      );
    },
  );

  it('when NODE_ENV is production, then the 500 internal_error says nothing about the answer', async () => {
    const response = await getFolder(appIn('production'));
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      type: 'server_error',
      code: 'internal_error',
      status: 500,
      title: 'Server error',
      message: 'Something went wrong on our side. Retry with backoff; quote the request_id if it persists.',
      request_id: response.headers['x-request-id'],
    });
  });
});
