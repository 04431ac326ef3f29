import { describe, expect, it } from 'vitest';
import { useWatchedApi } from '../support/http-checks.js';

const api = useWatchedApi();

describe('GET /v1/me', () => {
  it('when called with the live admin key, then it describes that key', async () => {
    const res = await api.call('get', '/v1/me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'me', environment: 'live', scope: 'admin' });
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
  });
});
