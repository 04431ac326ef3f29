/** A transferred form's submission events leave the old workspace: no replay, no pending retries of its answers. */
import { describe, expect, it } from 'vitest';
import { createForm, createIntegration, logsOf } from '../support/factories.js';
import { useWatchedApi } from '../support/http-checks.js';
import { moveForm } from '../support/transfers.js';
import { testWebhookUrls } from './integrations-support.js';

const api = useWatchedApi(() => ({ webhookUrls: testWebhookUrls() }));

describe('transferring a form with submission events', () => {
  it('when the form moves to another workspace (the transfer is accepted), then its submission events can no longer be replayed and their pending deliveries are gone', async () => {
    const integration = await createIntegration(api, { events: ['submission.created'] });
    const form = await createForm(api, {
      name: 'Moving',
      steps: [{ id: 'one', title: 'One', fields: [{ type: 'email', ref: 'email', label: 'Email', required: true }] }],
    });
    const submission = await api.call('post', '/v1/submissions').send({ form_id: form.id, answers: { email: 'ana@example.com' } });
    expect(submission.status).toBe(201);
    const [pending] = await logsOf(api, integration.id);
    expect(pending).toMatchObject({ event_type: 'submission.created', status: 'pending' });

    const other = await api.otherWorkspace();
    await moveForm(api, form.id, other);

    expect(await logsOf(api, integration.id)).toEqual([]);
    const replay = await api.call('post', `/v1/integrations/${integration.id}/dispatch`).send({ event_id: pending!.event_id });
    expect(replay.status).toBe(422);
    expect(replay.body.details.errors[0]).toMatchObject({ pointer: '/event_id', code: 'not_found' });
  });
});
