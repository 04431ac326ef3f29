/**
 * Concurrent edits: the strong ETag of forms and integrations, and If-Match on their PATCH (and a form's DELETE),
 * with the compare-and-set that makes the check and the write one step on both stores.
 */
import { describe, expect, it } from 'vitest';
import { createForm, createIntegration } from '../support/factories.js';
import { expectProblem, generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';
import { moveForm } from '../support/transfers.js';
import { testWebhookUrls } from './integrations-support.js';

const api = useWatchedApi(() => ({ rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));

/** The `ETag` of a response (the tests check it is there). */
const etagOf = (res: { headers: Record<string, string> }): string => res.headers.etag ?? '';

const strongTag = /^"[0-9A-Za-z_-]{22}"$/;

async function readForm(id: string) {
  const res = await api.call('get', `/v1/forms/${id}`);
  expect(res.status).toBe(200);
  return { form: res.body, etag: res.headers.etag as string };
}

const renameForm = (id: string, name: string, ifMatch?: string) => {
  const req = api.call('patch', `/v1/forms/${id}`);
  return (ifMatch === undefined ? req : req.set('If-Match', ifMatch)).send({ name });
};

describe('ETag on GET /v1/forms/{id}', () => {
  it('when a form is read twice without a change, then both answers carry the same strong ETag', async () => {
    const form = await createForm(api, { name: 'Stable' });
    const first = await readForm(form.id);
    expect(first.etag).toMatch(strongTag);
    expect((await readForm(form.id)).etag).toBe(first.etag);
  });

  it('when the form is updated, then the PATCH answers the new ETag, which the next GET repeats', async () => {
    const form = await createForm(api, { name: 'Changing' });
    const before = await readForm(form.id);
    const patched = await renameForm(form.id, 'Changed');
    expect(patched.status).toBe(200);
    expect(patched.headers.etag).toMatch(strongTag);
    expect(patched.headers.etag).not.toBe(before.etag);
    expect((await readForm(form.id)).etag).toBe(patched.headers.etag);
  });

  it('when a PATCH changes nothing, then the ETag stays the same', async () => {
    const form = await createForm(api, { name: 'Same' });
    const before = await readForm(form.id);
    const patched = await renameForm(form.id, 'Same', before.etag);
    expect(patched.status).toBe(200);
    expect(patched.headers.etag).toBe(before.etag);
  });

  it('when the form moves to another workspace, then its ETag there differs from the one read here', async () => {
    const form = await createForm(api, { name: 'Travelling' });
    const before = await readForm(form.id);
    const destination = await api.otherWorkspace();
    await moveForm(api, form.id, destination);
    const there = await api.call('get', `/v1/forms/${form.id}`, destination.live_admin_key);
    expect(there.status).toBe(200);
    expect(there.headers.etag).not.toBe(before.etag);
  });
});

describe('If-Match on PATCH /v1/forms/{id}', () => {
  it('when If-Match is the current ETag, then the update is made', async () => {
    const form = await createForm(api, { name: 'Matching' });
    const { etag } = await readForm(form.id);
    const res = await renameForm(form.id, 'Matched', etag);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Matched', version: 2 });
  });

  it('when If-Match is stale, then 412 precondition_failed and the form is unchanged', async () => {
    const form = await createForm(api, { name: 'Original' });
    const { etag } = await readForm(form.id);
    expect((await renameForm(form.id, 'Someone else', etag)).status).toBe(200);
    const res = await renameForm(form.id, 'Mine', etag);
    expectProblem(res, 412, 'conflict_error', 'precondition_failed');
    expect(res.body.message).toContain(form.id);
    expect((await readForm(form.id)).form).toMatchObject({ name: 'Someone else', version: 2 });
  });

  it('when If-Match is *, then the update is made whatever the current state', async () => {
    const form = await createForm(api, { name: 'Any' });
    expect((await renameForm(form.id, 'Anything', '*')).status).toBe(200);
  });

  it('when If-Match is the current ETag marked weak, then 412: the comparison is strong', async () => {
    const form = await createForm(api, { name: 'Weak' });
    const { etag } = await readForm(form.id);
    expectProblem(await renameForm(form.id, 'Weaker', `W/${etag}`), 412, 'conflict_error', 'precondition_failed');
  });

  it('when If-Match lists several ETags, one of them current, then the update is made', async () => {
    const form = await createForm(api, { name: 'Several' });
    const { etag } = await readForm(form.id);
    expect((await renameForm(form.id, 'Several!', `"AAAAAAAAAAAAAAAAAAAAAA", W/"BBB", ${etag}`)).status).toBe(200);
  });

  it('when If-Match is not a list of entity tags, then 400 invalid_parameters naming the header', async () => {
    const form = await createForm(api, { name: 'Malformed' });
    const res = await renameForm(form.id, 'x', 'not-a-tag');
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res).join()).toMatch(/header/);
  });

  it('when two clients send the same If-Match at once, then exactly one update is made and the other gets 412', async () => {
    const form = await createForm(api, { name: 'Race' });
    const { etag } = await readForm(form.id);
    const answers = await Promise.all(['First', 'Second', 'Third'].map((name) => renameForm(form.id, name, etag)));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 412, 412]);
    const winner = answers.find((res) => res.status === 200)!;
    expect((await readForm(form.id)).form).toMatchObject({ name: winner.body.name, version: 2 });
  });

  it('when concurrent updates come without If-Match, then each is made on the latest state, none lost to a version clash', async () => {
    const form = await createForm(api, { name: 'Busy' });
    const answers = await Promise.all(['One', 'Two', 'Three'].map((name) => renameForm(form.id, name)));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(answers.map((res) => res.body.version).sort()).toEqual([2, 3, 4]);
    expect((await readForm(form.id)).form.version).toBe(4);
  });
});

describe('If-Match on DELETE /v1/forms/{id}', () => {
  it('when If-Match is stale, then 412 and the form is not deleted', async () => {
    const form = await createForm(api, { name: 'Keep me' });
    const { etag } = await readForm(form.id);
    await renameForm(form.id, 'Kept');
    const res = await api.call('delete', `/v1/forms/${form.id}`).set('If-Match', etag);
    expectProblem(res, 412, 'conflict_error', 'precondition_failed');
    expect((await api.call('get', `/v1/forms/${form.id}`)).status).toBe(200);
  });

  it('when If-Match is current, then the form is deleted and the audit log records form.deleted', async () => {
    const form = await createForm(api, { name: 'Delete me' });
    const { etag } = await readForm(form.id);
    const res = await api.call('delete', `/v1/forms/${form.id}`).set('If-Match', etag);
    expect(res.status).toBe(200);
    expect((await api.call('get', `/v1/forms/${form.id}`)).status).toBe(404);
    const audit = await api.call('get', '/v1/audit_events?type=form.deleted');
    expect(audit.body.data.filter((event: { target: { id: string } }) => event.target.id === form.id)).toEqual([
      expect.objectContaining({
        type: 'form.deleted',
        environment: 'live',
        actor: expect.objectContaining({ type: 'api_key' }),
        target: { type: 'form', id: form.id, name: 'Delete me' },
      }),
    ]);
  });

  it('when a DELETE and a PATCH send the same If-Match at once, then exactly one is made and the other is refused: nothing is lost', async () => {
    // Several rounds, each request sent first in turn: whichever interleaving the server allows must keep the rule.
    const outcomes = new Set<string>();
    for (let round = 0; round < 6; round++) {
      const form = await createForm(api, { name: `Contested ${round}` });
      const { etag } = await readForm(form.id);
      const remove = () => api.call('delete', `/v1/forms/${form.id}`).set('If-Match', etag);
      const rename = () => renameForm(form.id, `Renamed ${round}`, etag);
      const [deleted, renamed] =
        round % 2 === 0
          ? await Promise.all([remove(), rename()])
          : await Promise.all([rename(), remove()]).then(([patch, del]) => [del, patch] as const);
      const after = await api.call('get', `/v1/forms/${form.id}`);
      if (deleted.status === 200) {
        // The PATCH was not made and did not bring the form back; it is told what a PATCH sent after the deletion is.
        outcomes.add('deleted');
        expectProblem(renamed, 404, 'not_found', 'resource_not_found');
        expect(after.status).toBe(404);
        expectProblem(await rename(), 404, 'not_found', 'resource_not_found');
      } else {
        // The DELETE was not made: the form holds the PATCH's change.
        outcomes.add('renamed');
        expect(renamed.status).toBe(200);
        expectProblem(deleted, 412, 'conflict_error', 'precondition_failed');
        expect(after.body).toMatchObject({ name: `Renamed ${round}`, version: 2 });
      }
    }
    // Both ways were met: each interleaving was checked, not only the one a quiet machine makes.
    expect([...outcomes].sort()).toEqual(['deleted', 'renamed']);
  });
});

describe('ETag and If-Match on integrations', () => {
  const pause = (id: string, ifMatch: string) =>
    api.call('patch', `/v1/integrations/${id}`).set('If-Match', ifMatch).send({ enabled: false });

  it('when an integration is read, updated with its ETag, then updated again with the old one, then 200 and then 412', async () => {
    const integration = await createIntegration(api);
    const read = await api.call('get', `/v1/integrations/${integration.id}`);
    expect(read.headers.etag).toMatch(strongTag);
    const paused = await pause(integration.id, etagOf(read));
    expect(paused.status).toBe(200);
    expect(paused.headers.etag).toMatch(strongTag);
    expect(paused.headers.etag).not.toBe(read.headers.etag);
    const stale = await api.call('patch', `/v1/integrations/${integration.id}`).set('If-Match', etagOf(read)).send({ description: 'x' });
    expectProblem(stale, 412, 'conflict_error', 'precondition_failed');
    const now = await api.call('get', `/v1/integrations/${integration.id}`);
    expect(now.body).toMatchObject({ enabled: false, description: null });
    expect(now.headers.etag).toBe(paused.headers.etag);
  });

  it('when two clients pause the same integration with the same ETag at once, then one succeeds and one gets 412', async () => {
    const integration = await createIntegration(api);
    const { etag } = (await api.call('get', `/v1/integrations/${integration.id}`)).headers as { etag: string };
    const answers = await Promise.all([
      api.call('patch', `/v1/integrations/${integration.id}`).set('If-Match', etag).send({ description: 'a' }),
      api.call('patch', `/v1/integrations/${integration.id}`).set('If-Match', etag).send({ description: 'b' }),
    ]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 412]);
  });
});
