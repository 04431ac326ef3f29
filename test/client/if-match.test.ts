/** Safe concurrent edits through the typed client: the ETag of a read sent back as If-Match. */
import { describe, expect, it } from 'vitest';
import { createFormFunnelClient, entityTagOf, FormFunnelError, ifMatch, ifNoneMatch, notModified, unwrap } from '../../src/client/index.js';
import { FORM_ID, fakeFetch, formBody, json, problem } from './fake-transport.js';

const ETAG = '"Xb3Q9mKfT0aLr7Vw2sNc1e"';
const client = (transport: ReturnType<typeof fakeFetch>) =>
  createFormFunnelClient({ apiKey: 'svc_test_4eC39HqLyjWDarjtT1zdp7dc', fetch: transport.fetch });

describe('ifMatch', () => {
  it('when a form read is passed to ifMatch, then the update carries its ETag as If-Match', async () => {
    const transport = fakeFetch(
      () => json(200, formBody, { ETag: ETAG }),
      () => json(200, formBody, { ETag: '"f9Lq2WcE8tRb0nHs6YuD4k"' }),
    );
    const api = client(transport);
    const read = await api.GET('/forms/{id}', { params: { path: { id: FORM_ID } } });
    expect(entityTagOf(read)).toBe(ETAG);
    const updated = await api.PATCH('/forms/{id}', { params: { path: { id: FORM_ID }, header: ifMatch(read) }, body: { name: 'Renamed' } });
    expect(transport.requests[1]?.headers.get('If-Match')).toBe(ETAG);
    expect(entityTagOf(updated)).toBe('"f9Lq2WcE8tRb0nHs6YuD4k"');
  });

  it('when the form changed meanwhile, then unwrap throws a FormFunnelError with code precondition_failed, not retried', async () => {
    const transport = fakeFetch(problem(412, 'precondition_failed', 'conflict_error'));
    const result = await client(transport).DELETE('/forms/{id}', { params: { path: { id: FORM_ID }, header: { 'If-Match': ETAG } } });
    expect(result.response.status).toBe(412);
    expect(result.error?.code).toBe('precondition_failed');
    expect(() => unwrap(result)).toThrow(FormFunnelError);
    expect(transport.requests).toHaveLength(1);
  });

  it('when the read failed, then ifMatch throws its FormFunnelError (resource_not_found), not a missing-ETag error', async () => {
    const read = await client(fakeFetch(problem(404, 'resource_not_found', 'invalid_request'))).GET('/forms/{id}', {
      params: { path: { id: FORM_ID } },
    });
    expect(() => ifMatch(read)).toThrow(expect.objectContaining({ name: 'FormFunnelError', code: 'resource_not_found' }));
  });

  it('when the read has no ETag, then ifMatch throws instead of sending an update without a precondition', async () => {
    const read = await client(fakeFetch(() => json(200, formBody))).GET('/forms/{id}', { params: { path: { id: FORM_ID } } });
    expect(() => ifMatch(read)).toThrow(/no ETag/);
  });
});

describe('ifNoneMatch', () => {
  it('when a read is passed to ifNoneMatch and the form is unchanged, then the next read is 304 and notModified says so', async () => {
    const transport = fakeFetch(
      () => json(200, formBody, { ETag: ETAG }),
      () => new Response(null, { status: 304, headers: { ETag: ETAG } }),
      () => json(200, formBody, { ETag: '"f9Lq2WcE8tRb0nHs6YuD4k"' }),
    );
    const api = client(transport);
    const read = await api.GET('/forms/{id}', { params: { path: { id: FORM_ID } } });
    expect(notModified(read)).toBe(false);
    const again = await api.GET('/forms/{id}', { params: { path: { id: FORM_ID }, header: ifNoneMatch(read) } });
    expect(transport.requests[1]?.headers.get('If-None-Match')).toBe(ETAG);
    expect(notModified(again)).toBe(true);
    expect(transport.requests).toHaveLength(2);
    const changed = await api.GET('/forms/{id}', { params: { path: { id: FORM_ID }, header: ifNoneMatch(read) } });
    expect(notModified(changed)).toBe(false);
    expect(unwrap(changed).id).toBe(FORM_ID);
  });

  it('when the read has no ETag, then ifNoneMatch throws', async () => {
    const read = await client(fakeFetch(() => json(200, formBody))).GET('/forms/{id}', { params: { path: { id: FORM_ID } } });
    expect(() => ifNoneMatch(read)).toThrow(/no ETag/);
  });
});
