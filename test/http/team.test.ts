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

describe('resending an invite', () => {
  const invite = async (email: string, role = 'viewer') => (await api.call('post', '/v1/team/invites').send({ email, role })).body;

  it('when a pending invite is resent, then it stays pending with a fresh 7-day expiry, and invite.resent is audited', async () => {
    const sent = await invite('fay@example.com');
    const before = Date.now();
    const res = await api.call('post', `/v1/team/invites/${sent.id}/resend`);
    expect(res.status).toBe(200);
    expectEnvelopeHeaders(res);
    expect(res.body).toEqual({ ...sent, expires_at: expect.any(String), request_id: res.headers['x-request-id'] });
    const expiresAt = Date.parse(res.body.expires_at);
    expect(expiresAt - before).toBeGreaterThanOrEqual(7 * 24 * 3600 * 1000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(7 * 24 * 3600 * 1000);
    expect(expiresAt).toBeGreaterThan(Date.parse(sent.expires_at));
    expect((await auditOf('invite.resent')).map((event) => event.target.id)).toEqual([sent.id]);
    const listed = await api.call('get', '/v1/team/invites?status=pending&limit=100');
    expect(listed.body.data.find((item: { id: string }) => item.id === sent.id)).toEqual({ ...res.body, request_id: undefined });
  });

  it('when a revoked invite is resent, then 409 invite_closed and nothing changes', async () => {
    const sent = await invite('gus@example.com');
    const revoked = (await api.call('delete', `/v1/team/invites/${sent.id}`)).body;
    const res = await api.call('post', `/v1/team/invites/${sent.id}/resend`);
    expectProblem(res, 409, 'conflict_error', 'invite_closed');
    expect(res.body.message).toBe(`Invite ${sent.id} was accepted or revoked and cannot be sent again; create a new invite.`);
    expect((await api.call('get', '/v1/team/invites?status=revoked&limit=100')).body.data).toContainEqual({
      ...revoked,
      request_id: undefined,
    });
    expect((await auditOf('invite.resent')).map((event) => event.target.id)).not.toContain(sent.id);
  });

  it('when an accepted invite is resent, then 409 invite_closed', async () => {
    const sent = await invite('hal@example.com');
    await api.rows(`UPDATE invites SET status = 'accepted' WHERE id = ?`, sent.id);
    expectProblem(await api.call('post', `/v1/team/invites/${sent.id}/resend`), 409, 'conflict_error', 'invite_closed');
  });

  it('when the invite does not exist, then 404 naming it', async () => {
    const res = await api.call('post', `/v1/team/invites/${absentId('inv')}/resend`);
    expectProblem(res, 404, 'not_found', 'resource_not_found');
    expect(res.body.message).toBe(`No invite ${absentId('inv')} exists, or this key cannot see it.`);
  });

  it('when another workspace resends the invite, then 404', async () => {
    const sent = await invite('ida@example.com');
    const other = await api.otherWorkspace();
    expectProblem(
      await api.call('post', `/v1/team/invites/${sent.id}/resend`, other.live_admin_key),
      404,
      'not_found',
      'resource_not_found',
    );
  });

  it('when a test key or a read key resends, then 403 live_resource or insufficient_scope', async () => {
    const sent = await invite('jo@example.com');
    const path = `/v1/team/invites/${sent.id}/resend`;
    expectProblem(await api.call('post', path, api.workspace.test_admin_key), 403, 'permission_error', 'live_resource');
    const reader = await api.createKey({ name: 'Reader', environment: 'live', scope: 'read' });
    expectProblem(await api.call('post', path, reader.secret), 403, 'permission_error', 'insufficient_scope');
    expect(await auditOf('invite.resent')).not.toContainEqual(
      expect.objectContaining({ target: expect.objectContaining({ id: sent.id }) }),
    );
  });

  it('when a resend is repeated with its Idempotency-Key, then the first answer is replayed and the invite renewed once', async () => {
    const sent = await invite('kai@example.com');
    const path = `/v1/team/invites/${sent.id}/resend`;
    const first = await api.call('post', path).set('Idempotency-Key', `resend-${sent.id}`);
    const again = await api.call('post', path).set('Idempotency-Key', `resend-${sent.id}`);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.expires_at).toBe(first.body.expires_at);
    expect((await auditOf('invite.resent')).filter((event) => event.target.id === sent.id)).toHaveLength(1);
  });
});

describe('resending an expired invite', () => {
  let clock = new Date('2026-11-02T09:00:00.000Z');
  const timed = useWatchedApi({ rateLimits: generousLimits, now: () => clock });
  const day = 24 * 3600 * 1000;
  const later = (ms: number) => {
    clock = new Date(clock.getTime() + ms);
  };

  it('when an expired invite is resent, then it is pending again for 7 days from now', async () => {
    const sent = (await timed.call('post', '/v1/team/invites').send({ email: 'lea@example.com', role: 'editor' })).body;
    later(8 * day);
    expect((await timed.call('get', '/v1/team/invites?status=expired')).body.data.map((item: { id: string }) => item.id)).toEqual([
      sent.id,
    ]);
    const res = await timed.call('post', `/v1/team/invites/${sent.id}/resend`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sent.id, status: 'pending', role: 'editor', created_at: sent.created_at, revoked_at: null });
    expect(res.body.expires_at).toBe(new Date(clock.getTime() + 7 * day).toISOString());
    expect((await timed.call('get', '/v1/team/invites?status=expired')).body.data).toEqual([]);
    later(6 * day);
    expect((await timed.call('get', `/v1/team/invites?status=pending`)).body.data.map((item: { id: string }) => item.id)).toEqual([
      sent.id,
    ]);
  });

  it('when the expired invite has been replaced by a new one, then 409 member_exists and it stays expired', async () => {
    const old = (await timed.call('post', '/v1/team/invites').send({ email: 'max@example.com', role: 'viewer' })).body;
    later(8 * day);
    const replacement = await timed.call('post', '/v1/team/invites').send({ email: 'max@example.com', role: 'viewer' });
    expect(replacement.status).toBe(201);
    expectProblem(await timed.call('post', `/v1/team/invites/${old.id}/resend`), 409, 'conflict_error', 'member_exists');
    const expired = (await timed.call('get', '/v1/team/invites?status=expired&limit=100')).body.data;
    expect(expired.map((item: { id: string }) => item.id)).toContain(old.id);
  });

  it('when the expired invite’s email has become a member, then 409 member_exists', async () => {
    const old = (await timed.call('post', '/v1/team/invites').send({ email: 'ned@example.com', role: 'viewer' })).body;
    later(8 * day);
    await timed.store.team.addMember(timed.workspace.workspace_id, {
      id: newId('mem'),
      object: 'member',
      email: 'ned@example.com',
      name: null,
      role: 'viewer',
      created_at: clock.toISOString(),
    });
    const res = await timed.call('post', `/v1/team/invites/${old.id}/resend`);
    expectProblem(res, 409, 'conflict_error', 'member_exists');
    expect(res.body.message).toBe('ned@example.com is already a member of this workspace or has a pending invite.');
  });
});
