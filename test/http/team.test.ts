/**
 * Team members and invites (admin): the workspace's only admin stays, an email is invited once, and test
 * keys may look but not change the (real, not sandboxed) team.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import type { Member } from '../support/factories.js';
import { absentId, expectEnvelopeHeaders, expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';

const api = useWatchedApi({ rateLimits: generousLimits });

const members = async (): Promise<Member[]> => (await api.call('get', '/v1/team/members?limit=100')).body.data;
const auditOf = async (type: string) =>
  (await api.call('get', `/v1/audit_events?type=${type}&limit=100`)).body.data as Array<{ target: { id: string } }>;

describe('members', () => {
  it('when the team is listed, then the bootstrap admin is there', async () => {
    const res = await api.call('get', '/v1/team/members');
    expect(res.status).toBe(200);
    expectEnvelopeHeaders(res);
    expect(res.body.data).toEqual([expect.objectContaining({ object: 'member', email: 'owner@acme.test', role: 'admin' })]);
  });

  it('when the only admin is removed, then 409 last_admin; with a second admin, the first can go', async () => {
    const [owner] = await members();
    expectProblem(await api.call('delete', `/v1/team/members/${owner!.id}`), 409, 'conflict_error', 'last_admin');

    await api.store.team.addMember(api.workspace.workspace_id, {
      id: newId('mem'),
      object: 'member',
      email: 'second@acme.test',
      name: 'Second',
      role: 'admin',
      created_at: new Date().toISOString(),
    });
    const res = await api.call('delete', `/v1/team/members/${owner!.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: owner!.id, object: 'member', deleted: true, request_id: res.headers['x-request-id'] });
    expect((await members()).map((member) => member.email)).toEqual(['second@acme.test']);
    expect((await auditOf('member.removed')).map((event) => event.target.id)).toContain(owner!.id);

    const [second] = await members();
    expectProblem(await api.call('delete', `/v1/team/members/${second!.id}`), 409, 'conflict_error', 'last_admin');
  });

  it('when an editor is removed, then no admin count matters', async () => {
    const editor = {
      id: newId('mem'),
      object: 'member' as const,
      email: 'editor@acme.test',
      name: null,
      role: 'editor' as const,
      created_at: new Date().toISOString(),
    };
    await api.store.team.addMember(api.workspace.workspace_id, editor);
    expect((await api.call('delete', `/v1/team/members/${editor.id}`)).status).toBe(200);
  });

  it('when the member does not exist, then 404', async () => {
    expectProblem(await api.call('delete', `/v1/team/members/${absentId('mem')}`), 404, 'not_found', 'resource_not_found');
  });

  it('when a test key removes a member, then 403 live_resource', async () => {
    const [someone] = await members();
    expectProblem(
      await api.call('delete', `/v1/team/members/${someone!.id}`, api.workspace.test_admin_key),
      403,
      'permission_error',
      'live_resource',
    );
    expect((await api.call('get', '/v1/team/members', api.workspace.test_admin_key)).status).toBe(200);
  });
});

describe('invites', () => {
  it('when someone is invited, then 201 pending for 7 days with the email lowercased, and member.invited is audited', async () => {
    const res = await api.call('post', '/v1/team/invites').send({ email: 'Ana@Example.com', role: 'editor' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/v1/team/invites/${res.body.id}`);
    expect(res.body).toMatchObject({ object: 'invite', email: 'ana@example.com', role: 'editor', status: 'pending', revoked_at: null });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(7 * 24 * 3600 * 1000);
    expect((await auditOf('member.invited')).map((event) => event.target.id)).toContain(res.body.id);
  });

  it('when the email already has a pending invite (any case), then 409 member_exists', async () => {
    expect((await api.call('post', '/v1/team/invites').send({ email: 'bo@example.com', role: 'viewer' })).status).toBe(201);
    expectProblem(
      await api.call('post', '/v1/team/invites').send({ email: 'BO@example.com', role: 'admin' }),
      409,
      'conflict_error',
      'member_exists',
    );
  });

  it('when the email belongs to a member, then 409 member_exists', async () => {
    const [member] = await members();
    expectProblem(
      await api.call('post', '/v1/team/invites').send({ email: member!.email, role: 'viewer' }),
      409,
      'conflict_error',
      'member_exists',
    );
  });

  it('when an invite is revoked, then it is revoked, audited, and the email can be invited again', async () => {
    const invite = (await api.call('post', '/v1/team/invites').send({ email: 'cy@example.com', role: 'viewer' })).body;
    const res = await api.call('delete', `/v1/team/invites/${invite.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: invite.id, status: 'revoked' });
    expect(res.body.revoked_at).not.toBeNull();
    expect((await auditOf('invite.revoked')).map((event) => event.target.id)).toContain(invite.id);
    expect((await api.call('post', '/v1/team/invites').send({ email: 'cy@example.com', role: 'viewer' })).status).toBe(201);
    const pending = await api.call('get', '/v1/team/invites?status=pending&limit=100');
    expect(pending.body.data.filter((item: { email: string }) => item.email === 'cy@example.com')).toHaveLength(1);
    const revoked = await api.call('get', '/v1/team/invites?status=revoked&limit=100');
    expect(revoked.body.data.map((item: { id: string }) => item.id)).toEqual([invite.id]);
  });

  it('when a test key invites or revokes, then 403 live_resource', async () => {
    const testKey = api.workspace.test_admin_key;
    expectProblem(
      await api.call('post', '/v1/team/invites', testKey).send({ email: 'dee@example.com', role: 'viewer' }),
      403,
      'permission_error',
      'live_resource',
    );
    const invite = (await api.call('post', '/v1/team/invites').send({ email: 'eve@example.com', role: 'viewer' })).body;
    expectProblem(await api.call('delete', `/v1/team/invites/${invite.id}`, testKey), 403, 'permission_error', 'live_resource');
  });

  it('when the email or role is invalid, then 400', async () => {
    const res = await api.call('post', '/v1/team/invites').send({ email: 'not-an-email', role: 'owner' });
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(res.body.details.errors.map((issue: { pointer: string }) => issue.pointer).sort()).toEqual(['/email', '/role']);
  });
});
