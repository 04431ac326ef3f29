/** POST /v1/forms/{id}/versions/{version}/restore: an earlier definition published again as a new version. */
import { describe, expect, it } from 'vitest';
import { createForm, createIntegration, formBody } from '../support/factories.js';
import { absentId, expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { testWebhookUrls } from './integrations-support.js';

const api = useWatchedApi(() => ({ rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));

/** The `ETag` of a response (the tests check it is there). */
const etagOf = (res: { headers: Record<string, string> }): string => res.headers.etag ?? '';

const restore = (id: string, version: number, key?: string) => api.call('post', `/v1/forms/${id}/versions/${version}/restore`, key);

let made = 0;

/** A form at version 3: version 1 as created, 2 with other steps, 3 renamed and moved to a new slug. */
async function formWithHistory() {
  made += 1;
  const form = await createForm(api, formBody('History'));
  const changedSteps = [{ id: 'only', title: 'Only step', fields: [{ type: 'email', ref: 'email', label: 'Email', required: true }] }];
  expect((await api.call('patch', `/v1/forms/${form.id}`).send({ steps: changedSteps })).status).toBe(200);
  expect((await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'History renamed', slug: `history-renamed-${made}` })).status).toBe(
    200,
  );
  return form;
}

describe('POST /v1/forms/{id}/versions/{version}/restore', () => {
  it('when version 1 is restored, then a new version 4 has its definition while name and slug stay current', async () => {
    const original = await formWithHistory();
    const res = await restore(original.id, 1);
    expect(res.status).toBe(200);
    expect(res.headers.etag).toMatch(/^"[0-9A-Za-z_-]{22}"$/);
    expect(res.body).toMatchObject({ id: original.id, version: 4, name: 'History renamed', slug: `history-renamed-${made}` });
    expect({ steps: res.body.steps, logic: res.body.logic, scoring: res.body.scoring }).toEqual({
      steps: original.steps,
      logic: original.logic,
      scoring: original.scoring,
    });
    const current = await api.call('get', `/v1/forms/${original.id}`);
    expect(current.body).toEqual({ ...res.body, request_id: current.body.request_id });
    expect(current.headers.etag).toBe(res.headers.etag);
    const versions = await api.call('get', `/v1/forms/${original.id}/versions`);
    expect(versions.body.data.map((version: { version: number }) => version.version)).toEqual([4, 3, 2, 1]);
  });

  it('when a version is restored, then integrations get form.updated with previous_version and the audit log records it', async () => {
    await createIntegration(api, { events: ['form.updated'] });
    const form = await formWithHistory();
    expect((await restore(form.id, 2)).status).toBe(200);
    const [event] = await api.rows(`SELECT body FROM events WHERE form_id = ? AND type = 'form.updated' ORDER BY created_at DESC`, form.id);
    expect(JSON.parse(String(event!.body)).data).toMatchObject({ object: { id: form.id, version: 4 }, previous_version: 3 });
    const audit = await api.call('get', '/v1/audit_events?type=form.version_restored');
    expect(audit.body.data.find((entry: { target: { id: string } }) => entry.target.id === form.id)).toMatchObject({
      type: 'form.version_restored',
      target: { type: 'form', id: form.id, name: 'History renamed' },
      reason: 'version 2 restored as version 4',
    });
  });

  it('when the current version is restored, then a new version is still published with the same definition', async () => {
    const form = await createForm(api, formBody('Current'));
    const res = await restore(form.id, 1);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 2, steps: form.steps });
  });

  it('when the version does not exist, then 404 resource_not_found and nothing is published', async () => {
    const form = await createForm(api, formBody('No such version'));
    expectProblem(await restore(form.id, 7), 404, 'not_found', 'resource_not_found');
    expectProblem(await restore(absentId('form'), 1), 404, 'not_found', 'resource_not_found');
    expect((await api.call('get', `/v1/forms/${form.id}`)).body.version).toBe(1);
  });

  it('when If-Match is stale, then 412 and nothing is published; when it is current, then the restore is made', async () => {
    const form = await formWithHistory();
    const read = await api.call('get', `/v1/forms/${form.id}`);
    await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Someone else' });
    expectProblem(await restore(form.id, 1).set('If-Match', etagOf(read)), 412, 'conflict_error', 'precondition_failed');
    const now = await api.call('get', `/v1/forms/${form.id}`);
    expect(now.body.version).toBe(4);
    expect((await restore(form.id, 1).set('If-Match', etagOf(now))).body.version).toBe(5);
  });

  it('when a test key restores a live form, then 403 live_resource; a read key gets 403 insufficient_scope', async () => {
    const form = await formWithHistory();
    expectProblem(await restore(form.id, 1, api.workspace.test_admin_key), 403, 'permission_error', 'live_resource');
    const reader = await api.createKey({ name: 'reader', environment: 'live', scope: 'read' });
    expectProblem(await restore(form.id, 1, reader.secret), 403, 'permission_error', 'insufficient_scope');
  });

  it('when a restore is retried with the same Idempotency-Key, then the first answer is replayed and one version published', async () => {
    const form = await formWithHistory();
    const first = await restore(form.id, 1).set('Idempotency-Key', 'restore-once');
    const again = await restore(form.id, 1).set('Idempotency-Key', 'restore-once');
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.version).toBe(4);
    expect((await api.call('get', `/v1/forms/${form.id}`)).body.version).toBe(4);
  });
});
