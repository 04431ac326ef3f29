/**
 * Every stored `submission.*` event names the submission it carries (`events.submission_id`, what a deletion or an
 * erasure finds its events by), whichever path wrote it: the create (on PostgreSQL one statement of its own), a
 * resume, a rescore, a deletion. The writers set the column from the data in hand; here it must equal what the
 * body says (`data.object.id`), and other events leave it empty.
 */
import { expect, it } from 'vitest';
import { createForm, submit } from '../support/factories.js';
import { useWatchedApi } from '../support/http-checks.js';
import { storedRows } from '../support/stores.js';
import { anaAnswers, demoForm } from './submissions-support.js';

const api = useWatchedApi();

it('when submissions are created, resumed, rescored and deleted, then each of their events names the submission its body carries', async () => {
  const form = await createForm(api, demoForm());
  const completed = await submit(api, { form_id: form.id, answers: anaAnswers() });
  const partial = await submit(api, { form_id: form.id, answers: { email: anaAnswers().email }, status: 'partial' });
  await api.call('patch', `/v1/submissions/${partial.id}`).send({ answers: anaAnswers(), status: 'completed' }).expect(200);
  await api.call('post', `/v1/submissions/${completed.id}/rescore`).send({}).expect(200);
  const deleted = await submit(api, { form_id: form.id, answers: anaAnswers() });
  await api.call('delete', `/v1/submissions/${deleted.id}`).expect(200);

  const rows = (await storedRows(api.store, 'SELECT type, submission_id, body FROM events')) as Array<{
    type: string;
    submission_id: string | null;
    body: string;
  }>;
  const named = rows.map(({ type, submission_id }) => ({ type, submission_id }));
  const carried = rows.map(({ type, body }) => {
    const id = (JSON.parse(body) as { data: { object?: { id?: unknown } } }).data.object?.id;
    return { type, submission_id: type.startsWith('submission.') && typeof id === 'string' ? id : null };
  });
  expect(named).toEqual(carried);
  // Not vacuous: every path above wrote events that carry a submission.
  expect(new Set(named.filter((event) => event.submission_id !== null).map((event) => event.type))).toEqual(
    new Set(['submission.created', 'submission.completed', 'submission.rescored', 'submission.deleted']),
  );
  expect(named.filter((event) => event.submission_id === partial.id).map((event) => event.type)).toContain('submission.completed');
});
