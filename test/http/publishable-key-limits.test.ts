/**
 * A publishable key has the per-key limit of an API key (100 requests a second by default; 3 here), counted per key.
 */
import { describe, expect, it } from 'vitest';
import { createForm } from '../support/factories.js';
import { expectProblem, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';

const api = useWatchedApi({
  rateLimits: {
    perKeyPerSecond: 3,
    perWorkspacePerMinute: 1_000_000,
    failedAuthPerAddressPerMinute: 1000,
    publicPerAddressPerMinute: 1000,
  },
});

describe('the per-key limit of a publishable key', () => {
  it('when a key goes past its per-second budget, then 429 rate_limited with Retry-After, and another key is not held back', async () => {
    const form = await createForm(api);
    const [busy, quiet] = [
      await createPublishableKey(api, { environment: 'live' }),
      await createPublishableKey(api, { environment: 'live' }),
    ];
    // Sent at once, so that they fall in one second however slow the machine is.
    const answers = await Promise.all(
      Array.from({ length: 10 }, async () => await api.call('get', `/v1/public/forms/${form.id}`, busy.value)),
    );
    const refused = answers.filter((res) => res.status === 429);
    expect(answers.filter((res) => res.status === 200).length).toBeLessThanOrEqual(6);
    expect(refused.length + answers.filter((res) => res.status === 200).length).toBe(10);
    expectProblem(refused[0]!, 429, 'rate_limit_error', 'rate_limited');
    expect(refused[0]!.headers['x-ratelimit-limit']).toBe('3');
    expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await api.call('get', `/v1/public/forms/${form.id}`, quiet.value)).status).toBe(200);
  });
});
