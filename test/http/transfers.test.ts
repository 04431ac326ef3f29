/**
 * Form transfers: the sender offers, the destination accepts or declines, the sender may cancel. Nothing
 * moves before acceptance, both workspaces audit every step, and the answer never tells the sender whether
 * the destination exists.
 */
import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BootstrappedWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import { createForm as createFormWith } from '../support/factories.js';
import { absentId, expectEnvelopeHeaders, expectProblem, generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';

let clock = new Date('2030-05-01T08:00:00.000Z');
const api = useWatchedApi({ rateLimits: generousLimits, now: () => clock });
const tick = (ms = 1000) => {
  clock = new Date(clock.getTime() + ms);
};

/** A form created a second after the previous step, so every list is ordered by time. */
function createForm(name: string, key?: string, slug?: string) {
  tick();
  return createFormWith(api, slug === undefined ? { name, steps: [] } : { name, slug, steps: [] }, key);
}

async function offer(formId: string, to: string): Promise<Response> {
  tick();
  return api.call('post', `/v1/forms/${formId}/transfer`).send({ workspace_id: to });
}

async function auditOf(key: string, type: string, targetId: string) {
  const res = await api.call('get', `/v1/audit_events?type=${type}&limit=100`, key);
  expect(res.status).toBe(200);
  return res.body.data.filter((event: { target: { id: string } }) => event.target.id === targetId);
}

describe('offering a form', () => {
  let other: BootstrappedWorkspace;
  beforeAll(async () => {
    other = await api.otherWorkspace();
  });

  it('when a form is offered, then 201 with a pending transfer, and the form stays where it is until accepted', async () => {
    const form = await createForm('Offered');
    const res = await offer(form.id, other.workspace_id);
    expect(res.status).toBe(201);
    expectEnvelopeHeaders(res);
    expect(res.headers.location).toBe(`/v1/transfers/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^xfr_[0-9A-Za-z]{24}$/),
      object: 'form_transfer',
      form_id: form.id,
      form_name: 'Offered',
      from_workspace_id: api.workspace.workspace_id,
      to_workspace_id: other.workspace_id,
      status: 'pending',
      created_at: clock.toISOString(),
      expires_at: new Date(clock.getTime() + 7 * 24 * 3600 * 1000).toISOString(),
      resolved_at: null,
      request_id: res.headers['x-request-id'],
    });

    expect((await api.call('get', `/v1/forms/${form.id}`)).status).toBe(200);
    expectProblem(await api.call('get', `/v1/forms/${form.id}`, other.live_admin_key), 404, 'not_found', 'resource_not_found');

    const [sent] = await auditOf(api.workspace.live_admin_key, 'form.transfer_requested', form.id);
    expect(sent).toMatchObject({ actor: { type: 'api_key' }, reason: `offered to workspace ${other.workspace_id}` });
    const [received] = await auditOf(other.live_admin_key, 'form.transfer_requested', form.id);
    expect(received).toMatchObject({
      actor: { type: 'system', id: null, name: null },
      target: { type: 'form', id: form.id, name: 'Offered' },
      reason: `offered by workspace ${api.workspace.workspace_id}`,
    });
  });

  it('when the destination workspace does not exist, then the answer is the same as for a real one, and the transfer just stays pending', async () => {
    const real = await offer((await createForm('To a real workspace')).id, other.workspace_id);
    const unknown = await offer((await createForm('To nowhere')).id, absentId('ws'));
    expect(unknown.status).toBe(real.status);
    expect(Object.keys(unknown.body).sort()).toEqual(Object.keys(real.body).sort());
    expect(unknown.body).toMatchObject({ status: 'pending', to_workspace_id: absentId('ws'), resolved_at: null });
    expect(Object.keys(unknown.headers).sort()).toEqual(Object.keys(real.headers).sort());
  });

  it("when the destination is the form's own workspace, then 422 invalid_value same_workspace", async () => {
    const form = await createForm('Staying');
    const res = await offer(form.id, api.workspace.workspace_id);
    expectProblem(res, 422, 'validation_error', 'invalid_value');
    expect(issuesOf(res)).toEqual(['body /workspace_id same_workspace']);
  });

  it('when the form already has a pending transfer, then 409 transfer_pending; once that is canceled, it can be offered again', async () => {
    const form = await createForm('Twice offered');
    const first = await offer(form.id, other.workspace_id);
    const second = await offer(form.id, other.workspace_id);
    expectProblem(second, 409, 'conflict_error', 'transfer_pending');
    expect(second.body.message).toContain(first.body.id);
    expect((await api.call('post', `/v1/transfers/${first.body.id}/cancel`)).status).toBe(200);
    expect((await offer(form.id, other.workspace_id)).status).toBe(201);
  });

  it('when a test key offers a form, then 403 live_resource: transfers are live-only', async () => {
    const form = await createForm('Not from the sandbox');
    const res = await api
      .call('post', `/v1/forms/${form.id}/transfer`, api.workspace.test_admin_key)
      .send({ workspace_id: other.workspace_id });
    expectProblem(res, 403, 'permission_error', 'live_resource');
    expect((await api.call('get', '/v1/transfers?direction=outgoing&limit=100')).body.data).not.toContainEqual(
      expect.objectContaining({ form_id: form.id }),
    );
  });
});

describe('answering a transfer', () => {
  it('when the destination accepts, then the form moves with its versions, its attached keys are revoked, and both workspaces audit it', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm('Moving');
    tick();
    await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Moving v2' });
    const attached = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'form', form_id: form.id } });
    const unrelated = await api.createKey({ environment: 'live', scope: 'read' });
    const offered = await offer(form.id, other.workspace_id);

    tick();
    const res = await api.call('post', `/v1/transfers/${offered.body.id}/accept`, other.live_admin_key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: offered.body.id, status: 'accepted', resolved_at: clock.toISOString() });

    expectProblem(await api.call('get', `/v1/forms/${form.id}`), 404, 'not_found', 'resource_not_found');
    const there = await api.call('get', `/v1/forms/${form.id}`, other.live_admin_key);
    expect(there.body).toMatchObject({ id: form.id, name: 'Moving v2', version: 2, folder_id: null });
    expect((await api.call('get', `/v1/forms/${form.id}/versions`, other.live_admin_key)).body.data).toHaveLength(2);

    expectProblem(await api.call('get', '/v1/me', attached.secret), 401, 'authentication_error', 'invalid_api_key');
    expect((await api.call('get', '/v1/me', unrelated.secret)).status).toBe(200);
    expect((await api.call('get', `/v1/api_keys/${attached.id}`)).body).toMatchObject({
      status: 'revoked',
      revocation_cause: 'form_transferred',
    });

    expect(await auditOf(api.workspace.live_admin_key, 'form.transferred', form.id)).toEqual([
      expect.objectContaining({
        actor: { type: 'system', id: null, name: null },
        reason: `transferred to workspace ${other.workspace_id}`,
      }),
    ]);
    expect(await auditOf(other.live_admin_key, 'form.transferred', form.id)).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ type: 'api_key' }),
        reason: `accepted from workspace ${api.workspace.workspace_id}`,
      }),
    ]);
    expect(await auditOf(api.workspace.live_admin_key, 'api_key.revoked_by_transfer', attached.id)).toHaveLength(1);

    for (const key of [api.workspace.live_admin_key, other.live_admin_key]) {
      expect((await api.call('get', `/v1/transfers/${offered.body.id}`, key)).body).toMatchObject({ status: 'accepted' });
    }
    expectProblem(
      await api.call('post', `/v1/transfers/${offered.body.id}/accept`, other.live_admin_key),
      409,
      'conflict_error',
      'transfer_not_pending',
    );
  });

  it('when the destination declines, then the form stays, both audit it, and it can no longer be accepted', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm('Declined');
    const offered = await offer(form.id, other.workspace_id);
    tick();
    const res = await api.call('post', `/v1/transfers/${offered.body.id}/decline`, other.live_admin_key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'declined', resolved_at: clock.toISOString() });
    expect((await api.call('get', `/v1/forms/${form.id}`)).status).toBe(200);
    expect(await auditOf(api.workspace.live_admin_key, 'form.transfer_declined', form.id)).toHaveLength(1);
    expect(await auditOf(other.live_admin_key, 'form.transfer_declined', form.id)).toHaveLength(1);
    const accept = await api.call('post', `/v1/transfers/${offered.body.id}/accept`, other.live_admin_key);
    expectProblem(accept, 409, 'conflict_error', 'transfer_not_pending');
    expect(accept.body.message).toMatch(/declined/);
  });

  it('when the sender cancels, then the destination can no longer accept it; each side may only do its own part', async () => {
    const other = await api.otherWorkspace();
    const stranger = await api.otherWorkspace();
    const form = await createForm('Canceled');
    const offered = await offer(form.id, other.workspace_id);
    const id = offered.body.id;

    expectProblem(await api.call('post', `/v1/transfers/${id}/accept`), 404, 'not_found', 'resource_not_found');
    expectProblem(await api.call('post', `/v1/transfers/${id}/decline`), 404, 'not_found', 'resource_not_found');
    expectProblem(await api.call('post', `/v1/transfers/${id}/cancel`, other.live_admin_key), 404, 'not_found', 'resource_not_found');
    for (const action of ['accept', 'decline', 'cancel']) {
      expectProblem(
        await api.call('post', `/v1/transfers/${id}/${action}`, stranger.live_admin_key),
        404,
        'not_found',
        'resource_not_found',
      );
    }
    expectProblem(await api.call('get', `/v1/transfers/${id}`, stranger.live_admin_key), 404, 'not_found', 'resource_not_found');

    tick();
    expect((await api.call('post', `/v1/transfers/${id}/cancel`)).body).toMatchObject({ status: 'canceled' });
    expect(await auditOf(other.live_admin_key, 'form.transfer_canceled', form.id)).toHaveLength(1);
    expect(await auditOf(api.workspace.live_admin_key, 'form.transfer_canceled', form.id)).toHaveLength(1);
    expectProblem(
      await api.call('post', `/v1/transfers/${id}/accept`, other.live_admin_key),
      409,
      'conflict_error',
      'transfer_not_pending',
    );
    expect((await api.call('get', `/v1/forms/${form.id}`)).status).toBe(200);
  });

  it('when the destination already has a form with the slug, then 409 slug_taken and nothing moves; after renaming its own form it can accept', async () => {
    const other = await api.otherWorkspace();
    const theirs = await createForm('Clash', other.live_admin_key, 'clash');
    const form = await createForm('Clash', undefined, 'clash');
    const attached = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'form', form_id: form.id } });
    const offered = await offer(form.id, other.workspace_id);

    const clash = await api.call('post', `/v1/transfers/${offered.body.id}/accept`, other.live_admin_key);
    expectProblem(clash, 409, 'conflict_error', 'slug_taken');
    expect((await api.call('get', `/v1/forms/${form.id}`)).status).toBe(200);
    expect((await api.call('get', '/v1/me', attached.secret)).status).toBe(200);
    expect((await api.call('get', `/v1/transfers/${offered.body.id}`, other.live_admin_key)).body.status).toBe('pending');

    expect((await api.call('patch', `/v1/forms/${theirs.id}`, other.live_admin_key).send({ slug: 'clash-ours' })).status).toBe(200);
    expect((await api.call('post', `/v1/transfers/${offered.body.id}/accept`, other.live_admin_key)).status).toBe(200);
    expect((await api.call('get', `/v1/forms/${form.id}`, other.live_admin_key)).body.slug).toBe('clash');
  });

  it('when a test key answers a transfer, then 403 live_resource', async () => {
    const other = await api.otherWorkspace();
    const offered = await offer((await createForm('Sandbox answer')).id, other.workspace_id);
    for (const action of ['accept', 'decline']) {
      const res = await api.call('post', `/v1/transfers/${offered.body.id}/${action}`, other.test_admin_key);
      expectProblem(res, 403, 'permission_error', 'live_resource');
    }
    expect((await api.call('get', `/v1/transfers/${offered.body.id}`, other.test_admin_key)).body.status).toBe('pending');
  });

  it('when 7 days pass without an answer, then the transfer is expired and cannot be accepted', async () => {
    const other = await api.otherWorkspace();
    const offered = await offer((await createForm('Too late')).id, other.workspace_id);
    tick(7 * 24 * 3600 * 1000);
    const read = await api.call('get', `/v1/transfers/${offered.body.id}`, other.live_admin_key);
    expect(read.body).toMatchObject({ status: 'expired', resolved_at: offered.body.expires_at });
    expectProblem(
      await api.call('post', `/v1/transfers/${offered.body.id}/accept`, other.live_admin_key),
      409,
      'conflict_error',
      'transfer_not_pending',
    );
  });

  it('when the offered form is deleted, then its pending transfer is canceled', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm('Deleted meanwhile');
    const offered = await offer(form.id, other.workspace_id);
    expect((await api.call('delete', `/v1/forms/${form.id}`)).status).toBe(200);
    expect((await api.call('get', `/v1/transfers/${offered.body.id}`, other.live_admin_key)).body.status).toBe('canceled');
    expectProblem(
      await api.call('post', `/v1/transfers/${offered.body.id}/accept`, other.live_admin_key),
      409,
      'conflict_error',
      'transfer_not_pending',
    );
  });
});

describe('GET /v1/transfers', () => {
  it('when a workspace lists its transfers, then it sees what it sent and received, newest first, filtered by direction', async () => {
    const other = await api.otherWorkspace();
    const outgoing = await offer((await createForm('Outgoing')).id, other.workspace_id);
    tick();
    const theirs = (await api.call('post', '/v1/forms', other.live_admin_key).send({ name: 'Incoming' })).body;
    tick();
    const incoming = await api
      .call('post', `/v1/forms/${theirs.id}/transfer`, other.live_admin_key)
      .send({ workspace_id: api.workspace.workspace_id });
    expect(incoming.status).toBe(201);

    const both = await api.call('get', '/v1/transfers?limit=2', other.live_admin_key);
    expect(both.status).toBe(200);
    expect(both.body.data.map((t: { id: string }) => t.id)).toEqual([incoming.body.id, outgoing.body.id]);
    const ids = async (query: string, key: string) =>
      (await api.call('get', `/v1/transfers?${query}&limit=100`, key)).body.data.map((t: { id: string }) => t.id);
    expect(await ids('direction=incoming', other.live_admin_key)).toEqual([outgoing.body.id]);
    expect(await ids('direction=outgoing', other.live_admin_key)).toEqual([incoming.body.id]);
    expect(await ids('direction=incoming', api.workspace.live_admin_key)).toContain(incoming.body.id);
    expect(await ids('direction=outgoing', api.workspace.live_admin_key)).not.toContain(incoming.body.id);
  });
});
