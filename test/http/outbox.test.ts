/**
 * A change, its events and the answer to its Idempotency-Key commit in one transaction. A failure is injected
 * where the last of them is written (an aborting trigger on the database); the request must leave nothing
 * behind, and the client's retry with the same key must make the change exactly once and then replay it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { storeSnapshot, withInjectedFailure } from '../support/db-snapshot.js';
import { createForm, createIntegration, PUBLIC_URL, submit } from '../support/factories.js';
import { expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { testWebhookUrls } from './integrations-support.js';
import { anaAnswers, anaHidden, demoForm } from './submissions-support.js';

const api = useWatchedApi(() => ({ rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));
let formId: string;
let submissionId: string;
let integrationId: string;
beforeAll(async () => {
  integrationId = (await createIntegration(api, { url: PUBLIC_URL, events: ['form.created', 'submission.created', 'submission.rescored'] }))
    .id;
  formId = (await createForm(api, demoForm())).id;
  submissionId = (await submit(api, { form_id: formId, answers: anaAnswers(), hidden: anaHidden() })).id;
});

// A key's last use is written on its own schedule, whatever happens to the request.
const dbState = () => storeSnapshot(api.store, { api_keys: ['last_used_at'] });
const post = (path: string, key: string, body: object) =>
  api.call('post', path, api.workspace.live_admin_key).set('Idempotency-Key', key).send(body);
const withFailing = <T>(trigger: string, run: () => Promise<T>): Promise<T> => withInjectedFailure(api.store, trigger, run);
const countOf = async (sql: string, ...params: unknown[]) =>
  (await api.rows(`SELECT count(*) AS n FROM ${sql}`, ...params))[0]!.n as number;

describe('a change and its Idempotency-Key answer in one transaction', () => {
  it.each([
    ['POST /v1/forms', () => ['/v1/forms', { name: 'Outbox form' }]],
    ['POST /v1/folders', () => ['/v1/folders', { name: 'Outbox folder' }]],
    ['POST /v1/api_keys', () => ['/v1/api_keys', { name: 'Outbox key', environment: 'live', scope: 'read' }]],
    ['POST /v1/integrations', () => ['/v1/integrations', { url: PUBLIC_URL, events: ['form.deleted'] }]],
    ['POST /v1/team/invites', () => ['/v1/team/invites', { email: 'outbox@acme.test', role: 'editor' }]],
    ['POST /v1/submissions', () => ['/v1/submissions', { form_id: formId, answers: anaAnswers(), hidden: anaHidden() }]],
    ['POST /v1/submissions/{id}/rescore', () => [`/v1/submissions/${submissionId}/rescore`, {}]],
    ['POST /v1/integrations/{id}/dispatch', () => [`/v1/integrations/${integrationId}/dispatch`, {}]],
    ['POST /v1/integrations/{id}/rotate_secret', () => [`/v1/integrations/${integrationId}/rotate_secret`, { expire_previous_after: 60 }]],
  ] as Array<[string, () => [string, object]]>)(
    'when answering the key fails for %s, then nothing of the change remains, and the retry makes it once and then replays it',
    async (operation, request) => {
      const [path, body] = request();
      const key = `outbox-${operation.replace(/[^a-z]+/gi, '-')}`;
      const before = await dbState();
      const failed = await withFailing('BEFORE UPDATE ON idempotency_keys', () => post(path, key, body));
      expectProblem(failed, 500, 'server_error', 'internal_error');
      expect(await dbState()).toEqual(before);

      const made = await post(path, key, body);
      expect(made.status, JSON.stringify(made.body)).toBeLessThan(300);
      expect(made.headers['idempotent-replayed']).toBeUndefined();
      const after = await dbState();
      const replayed = await post(path, key, body);
      expect(replayed.status).toBe(made.status);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.headers.location).toBe(made.headers.location);
      const { request_id: _made, ...madeBody } = made.body;
      const { request_id: _replayed, ...replayedBody } = replayed.body;
      expect(replayedBody).toEqual(madeBody);
      expect(await dbState()).toEqual(after);
    },
  );

  it('when the event rows cannot be written, then the submission is not stored, and the retry stores it and its event once', async () => {
    const body = { form_id: formId, answers: anaAnswers(), hidden: anaHidden() };
    const submissions = () => countOf('submissions WHERE form_id = ?', formId);
    const events = () => countOf(`events WHERE type = 'submission.created'`);
    const [submissionsBefore, eventsBefore] = [await submissions(), await events()];
    const before = await dbState();

    const failed = await withFailing('BEFORE INSERT ON events', () => post('/v1/submissions', 'outbox-event', body));
    expectProblem(failed, 500, 'server_error', 'internal_error');
    expect(await dbState()).toEqual(before);

    const made = await post('/v1/submissions', 'outbox-event', body);
    expect(made.status).toBe(201);
    expect((await post('/v1/submissions', 'outbox-event', body)).headers['idempotent-replayed']).toBe('true');
    expect([await submissions(), await events()]).toEqual([submissionsBefore + 1, eventsBefore + 1]);
    expect(await countOf(`deliveries WHERE event_id IN (SELECT id FROM events WHERE body LIKE ?)`, `%${made.body.id}%`)).toBe(1);
  });

  it('when a request without an Idempotency-Key cannot write its event, then its change is not stored either', async () => {
    const before = await dbState();
    const failed = await withFailing('BEFORE INSERT ON events', () =>
      api.call('post', '/v1/forms', api.workspace.live_admin_key).send({ name: 'Eventless' }),
    );
    expectProblem(failed, 500, 'server_error', 'internal_error');
    expect(await dbState()).toEqual(before);
  });
});
