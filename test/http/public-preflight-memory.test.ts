/**
 * A preflight carries no key, so it is granted to an origin that some active publishable key allows. The store keeps
 * its verdict of each origin in memory and forgets every verdict when a publishable key is created, changed or
 * revoked: an origin refused once is granted by the next preflight after a key allows it, never some time later, and
 * an origin no key allows any more is refused by the next one. (Across processes: test/store/postgres-row-cache.test.ts.)
 */
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';

const api = useWatchedApi(() => ({ rateLimits: generousLimits }));

const preflight = (origin: string) =>
  request(api.baseUrl)
    .options('/v1/public/submissions')
    .trustLocalhost()
    .ca(api.certificate)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST');

describe('the preflights’ memory of origins', () => {
  it('when a refused origin is allowed by a new key, then its next preflight is granted; once the key is revoked, refused', async () => {
    const origin = 'https://newly-allowed.example';
    const refused = await preflight(origin);
    expect(refused.status).toBe(204);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(refused.headers.vary).toBe('Origin');
    // Asked again: the refusal is remembered, and answered the same.
    expect((await preflight(origin)).headers['access-control-allow-origin']).toBeUndefined();

    const key = await createPublishableKey(api, { environment: 'live', allowed_origins: [origin] });
    const granted = await preflight(origin);
    expect(granted.status).toBe(204);
    expect(granted.headers).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, POST, PATCH',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
    expect((await preflight(origin)).headers['access-control-allow-origin']).toBe(origin);

    expect((await api.call('delete', `/v1/publishable_keys/${key.id}`)).status).toBe(200);
    expect((await preflight(origin)).headers['access-control-allow-origin']).toBeUndefined();
  });
});
