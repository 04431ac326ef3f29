/** Inputs the schema lets through that JavaScript cannot represent: each gets a problem, never a 500. */
import { describe, expect, it } from 'vitest';
import { useWatchedApi } from '../support/http-checks.js';

const api = useWatchedApi();

describe('inputs at the edge of the formats', () => {
  it('when a list filter names a leap second, then 400 invalid_parameters pointing at it', async () => {
    const res = await api.call('get', '/v1/submissions?created_gte=2024-12-31T23:59:60Z');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_parameters');
    expect(res.body.details.errors[0]).toMatchObject({ location: 'query', pointer: '/created_gte' });
  });

  it('when a key would expire on a leap second, then 422 with a pointer to expires_at and no key is made', async () => {
    const res = await api
      .call('post', '/v1/api_keys')
      .send({ name: 'leap', environment: 'live', scope: 'read', expires_at: '2030-06-30T23:59:60Z' });
    expect([400, 422]).toContain(res.status);
    expect(JSON.stringify(res.body.details.errors)).toContain('/expires_at');
    const keys = await api.call('get', '/v1/api_keys?limit=100');
    expect(keys.body.data.map((key: { name: string }) => key.name)).not.toContain('leap');
  });

  it('when a path carries malformed percent-encoding, then 400, not 500', async () => {
    const res = await api.call('get', '/v1/forms/%E0%A4');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
  });
});
