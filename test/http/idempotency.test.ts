/**
 * Idempotency-Key on POST: a retry with the same body replays the first response and changes nothing;
 * the same key with another request is a conflict; keys belong to one API key and expire after 24 hours.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/http/dispatch.js';
import { formBody } from '../support/factories.js';
import { expectEnvelopeHeaders, expectProblem, generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';
import { storedRows } from '../support/stores.js';

let clock = new Date('2032-01-01T00:00:00.000Z');
const api = useWatchedApi({ rateLimits: generousLimits, now: () => clock });

const post = (path: string, key: string, body: unknown, apiKey = api.workspace.live_admin_key) =>
  api
    .call('post', path, apiKey)
    .set('Idempotency-Key', key)
    .send(body as object);
const formsNamed = async (name: string, apiKey = api.workspace.live_admin_key) =>
  ((await api.call('get', '/v1/forms?limit=100', apiKey)).body.data as Array<{ id: string; name: string }>).filter(
    (form) => form.name === name,
  );

describe('Idempotency-Key', () => {
  it('when a create is retried with the same key and body, then the first response is replayed and only one form exists', async () => {
    const first = await post('/v1/forms', 'create-once-1', formBody('Once only'));
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const again = await post('/v1/forms', 'create-once-1', formBody('Once only'));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    const { request_id: _a, ...firstBody } = first.body;
    const { request_id: _b, ...againBody } = again.body;
    expect(againBody).toEqual(firstBody);
    // Each response is its own request: its own id, in header and body alike.
    expectEnvelopeHeaders(again);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);

    expect(await formsNamed('Once only')).toHaveLength(1);
  });

  it('when the retry has the same body with keys in another order, then it is still a replay', async () => {
    const body = { name: 'Key order', slug: 'key-order' };
    const first = await post('/v1/forms', 'key-order-1', body);
    const again = await post('/v1/forms', 'key-order-1', { slug: 'key-order', name: 'Key order' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  it('when the same key comes with another body, then 409 idempotency_conflict and nothing is created', async () => {
    expect((await post('/v1/forms', 'conflict-1', formBody('Original'))).status).toBe(201);
    const res = await post('/v1/forms', 'conflict-1', formBody('Different'));
    expectProblem(res, 409, 'conflict_error', 'idempotency_conflict');
    expect(await formsNamed('Different')).toHaveLength(0);
  });

  it('when the same key comes with a body that differs only in a nested value, then 409 idempotency_conflict', async () => {
    const original = formBody('Nested original');
    const nested = structuredClone(original) as { steps: Array<{ fields: Array<{ label: string }> }> };
    nested.steps[1]!.fields[0]!.label = 'Company (changed)';
    expect((await post('/v1/forms', 'nested-1', original)).status).toBe(201);
    const res = await post('/v1/forms', 'nested-1', nested);
    expectProblem(res, 409, 'conflict_error', 'idempotency_conflict');
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await formsNamed('Nested original')).toHaveLength(1);
  });

  it('when the same key comes with the same body in another key order, at any depth, then the first response is replayed', async () => {
    const step = { id: 'only', title: 'Only', fields: [{ type: 'email', ref: 'email', label: 'Email', required: true }] };
    const reordered = { fields: [{ required: true, label: 'Email', ref: 'email', type: 'email' }], title: 'Only', id: 'only' };
    const first = await post('/v1/forms', 'reordered-1', { name: 'Reordered', slug: 'reordered', steps: [step] });
    const again = await post('/v1/forms', 'reordered-1', { steps: [reordered], slug: 'reordered', name: 'Reordered' });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  it('when the same key is used on another path, then 409 idempotency_conflict', async () => {
    expect((await post('/v1/folders', 'path-1', { name: 'Path folder' })).status).toBe(201);
    expectProblem(await post('/v1/forms', 'path-1', { name: 'Path folder' }), 409, 'conflict_error', 'idempotency_conflict');
  });

  it('when another API key uses the same Idempotency-Key, then it is independent and creates its own form', async () => {
    const otherKey = await api.createKey({ environment: 'live', scope: 'read_write' });
    const mine = await post('/v1/forms', 'shared-key', formBody('Shared key', { slug: 'shared-key-a' }));
    const theirs = await post('/v1/forms', 'shared-key', formBody('Shared key', { slug: 'shared-key-b' }), otherKey.secret);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
    // Even with the identical body, a different API key is never served another key's response.
    const same = await post('/v1/forms', 'shared-key-2', formBody('Same body'));
    const sameOther = await post('/v1/forms', 'shared-key-2', formBody('Same body'), otherKey.secret);
    expect(sameOther.headers['idempotent-replayed']).toBeUndefined();
    expect(sameOther.body.id).not.toBe(same.body.id);
    expect(await formsNamed('Same body')).toHaveLength(2);
  });

  it('when the first request failed with a 4xx, then the retry replays that failure', async () => {
    await api.call('post', '/v1/forms').send({ name: 'Taken', slug: 'taken-slug' });
    const first = await post('/v1/forms', 'replay-error', { name: 'Wants taken', slug: 'taken-slug' });
    expectProblem(first, 409, 'conflict_error', 'slug_taken');
    const again = await post('/v1/forms', 'replay-error', { name: 'Wants taken', slug: 'taken-slug' });
    expectProblem(again, 409, 'conflict_error', 'slug_taken');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.request_id).toBe(again.headers['x-request-id']);
  });

  it('when 24 hours have passed, then the key can be used afresh', async () => {
    expect((await post('/v1/forms', 'expiring', formBody('Before expiry'))).status).toBe(201);
    clock = new Date(clock.getTime() + 23 * 3600_000);
    expectProblem(await post('/v1/forms', 'expiring', formBody('After 23 hours')), 409, 'conflict_error', 'idempotency_conflict');
    clock = new Date(clock.getTime() + 2 * 3600_000);
    const res = await post('/v1/forms', 'expiring', formBody('After 25 hours'));
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('when a keyed request is stored, then neither the key nor an unkeyed digest of the body is kept', async () => {
    // An erasure request names a person: what the idempotency table keeps must not let anyone test guesses.
    const body = { email: 'Jane.Doe@example.com' };
    // The path as the /v1 router sees it.
    const request = { method: 'POST', path: '/submissions/erase', body };
    const erased = await post('/v1/submissions/erase', 'erase-once-1', body);
    expect(erased.status).toBe(200);
    const rows = await storedRows(api.store, 'SELECT * FROM idempotency_keys');
    const stored = JSON.stringify(rows);
    const unkeyed = createHash('sha256')
      .update(`POST /v1/submissions/erase\n${JSON.stringify(body)}`)
      .digest('hex');
    for (const leak of ['erase-once-1', 'Jane.Doe', 'jane.doe', unkeyed]) expect(stored).not.toContain(leak);
    expect(stored).toContain(fingerprint(request, 'erase-once-1'));
    expect(fingerprint(request, 'erase-once-1')).not.toBe(fingerprint(request, 'erase-once-2'));
  });

  it('when the Idempotency-Key is longer than 255 characters, then 400 on the header', async () => {
    const res = await post('/v1/forms', 'k'.repeat(256), formBody('Long key'));
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(issuesOf(res)).toEqual(['header /idempotency-key max_length']);
    expect(await formsNamed('Long key')).toHaveLength(0);
  });

  it('when other POSTs carry a key (folders, API keys, invites), then they are replayed too', async () => {
    const folder = await post('/v1/folders', 'folder-1', { name: 'Idempotent folder' });
    expect((await post('/v1/folders', 'folder-1', { name: 'Idempotent folder' })).body.id).toBe(folder.body.id);
    const invite = await post('/v1/team/invites', 'invite-1', { email: 'idem@example.com', role: 'viewer' });
    const again = await post('/v1/team/invites', 'invite-1', { email: 'idem@example.com', role: 'viewer' });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(invite.body.id);
  });
});
