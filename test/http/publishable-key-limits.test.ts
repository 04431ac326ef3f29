/**
 * The limits publishable keys meet: the per-key limit of an API key (100 requests a second by default; 3 here), counted
 * per key, and a workspace budget of their own (`PUBLIC_RATE_LIMIT_PER_WORKSPACE_PER_MINUTE`), apart from the secret
 * keys', so that a form's visitors can never lock the workspace out of its own API.
 */
import { describe, expect, it } from 'vitest';
import { createForm, formBody, submit } from '../support/factories.js';
import { expectProblem, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey } from '../support/publishable-keys.js';

describe('the per-key limit of a publishable key', () => {
  const api = useWatchedApi({
    rateLimits: {
      perKeyPerSecond: 3,
      perWorkspacePerMinute: 1_000_000,
      failedAuthPerAddressPerMinute: 1000,
      publicPerAddressPerMinute: 1000,
    },
  });

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

describe("the publishable keys' workspace budget", () => {
  // The red team's numbers: a workspace limit of 40 a minute, and 10 requests from each of four addresses.
  const api = useWatchedApi({
    trustedProxies: ['127.0.0.1'],
    rateLimits: {
      perKeyPerSecond: 1000,
      perWorkspacePerMinute: 40,
      publicPerWorkspacePerMinute: 40,
      failedAuthPerAddressPerMinute: 1000,
      publicPerAddressPerMinute: 10,
    },
  });

  it("when visitors from four addresses spend the publishable budget, then the owner's secret keys keep theirs, and the next visitor gets 429", async () => {
    const form = await createForm(api, formBody('Popular')); // the secret budget's first request
    const site = await createPublishableKey(api, { environment: 'live' }); // its second
    const visit = (address: string) => api.call('get', `/v1/public/forms/${form.id}`, site.value).set('X-Forwarded-For', address);
    for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4']) {
      for (let index = 0; index < 10; index++) expect((await visit(address)).status).toBe(200);
    }

    const refused = await visit('198.51.100.5');
    expectProblem(refused, 429, 'rate_limit_error', 'rate_limited');
    expect(refused.body.message).toMatch(/^More than 40 requests per minute with this workspace's publishable keys/);
    expect(refused.headers['x-ratelimit-limit']).toBe('40');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    const me = await api.call('get', '/v1/me');
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.headers['x-ratelimit-limit']).toBe('40');
    expect(me.headers['x-ratelimit-remaining']).toBe('37');
    const created = await submit(api, { form_id: form.id, answers: { email: 'owner@acme.example' } });
    expect(created.object).toBe('submission');
  });

  it('when the secret keys spend their workspace budget, then the visitors keep theirs', async () => {
    const workspace = await api.otherWorkspace('business');
    const caller = { call: api.call, workspace: { ...api.workspace, ...workspace } };
    const form = await createForm(caller, formBody('Quiet'), workspace.live_admin_key);
    const site = await createPublishableKey(caller, { environment: 'live' });
    for (let index = 0; index < 38; index++) expect((await api.call('get', '/v1/me', workspace.live_admin_key)).status).toBe(200);
    expectProblem(await api.call('get', '/v1/me', workspace.live_admin_key), 429, 'rate_limit_error', 'rate_limited');

    const visited = await api.call('get', `/v1/public/forms/${form.id}`, site.value).set('X-Forwarded-For', '198.51.100.9');
    expect(visited.status).toBe(200);
    expect(visited.headers['x-ratelimit-limit']).toBe('40');
    expect(visited.headers['x-ratelimit-remaining']).toBe('39');
  });
});
