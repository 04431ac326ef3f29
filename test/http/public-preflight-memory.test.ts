/**
 * A preflight carries no key, so it is granted to an origin that some active publishable key allows; each process
 * remembers what it read of an origin for 30 seconds (on the app's clock). The memory must expire: otherwise an
 * origin refused once stays refused for the life of the process, even after a key allows it.
 */
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { generousLimits, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';
import { testClock } from './integrations-support.js';

const clock = testClock('2026-11-02T09:00:00.000Z');
const api = useWatchedApi(() => ({ rateLimits: generousLimits, now: clock.now }));

const preflight = (origin: string) =>
  request(api.baseUrl)
    .options('/v1/public/submissions')
    .trustLocalhost()
    .ca(api.certificate)
    .set('Origin', origin)
    .set('Access-Control-Request-Method', 'POST');

describe('the preflights’ memory of origins', () => {
  it('when a refused origin is allowed by a new key, then its preflights are granted once 30 seconds have passed, not before', async () => {
    const origin = 'https://newly-allowed.example';
    const refused = await preflight(origin);
    expect(refused.status).toBe(204);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(refused.headers.vary).toBe('Origin');

    await createPublishableKey(api, { environment: 'live', allowed_origins: [origin] });
    clock.advance(29_000);
    expect((await preflight(origin)).headers['access-control-allow-origin']).toBeUndefined();

    clock.advance(1_000);
    const granted = await preflight(origin);
    expect(granted.status).toBe(204);
    expect(granted.headers).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, POST, PATCH',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
  });
});
