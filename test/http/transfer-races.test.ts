/**
 * Tenancy under races: a transfer's accept and the sender's own writes to the form serialize. Every row of the
 * form ends in the new owner's workspace, or the competing request answers 404 (never 500, never a write made in
 * a workspace that no longer owns the form). Two ways of racing: the accept forced between a request's ownership
 * read and its write (a store method wrapped so the accept runs first), and requests fired at the same moment.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { BootstrappedWorkspace } from '../../src/domain/workspaces/bootstrap.js';
import type { Store } from '../../src/store/types.js';
import { createForm, PUBLIC_URL, submit } from '../support/factories.js';
import { expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { pngImage } from '../support/images.js';
import { testWebhookUrls } from './integrations-support.js';

const api = useWatchedApi(() => ({ rateLimits: generousLimits, webhookUrls: testWebhookUrls() }));

const steps = [{ id: 'one', title: 'One', fields: [{ type: 'email' as const, ref: 'email', label: 'Email', required: true }] }];
const answers = { email: 'ana@example.com' };

async function offer(formId: string, to: BootstrappedWorkspace): Promise<string> {
  const res = await api.call('post', `/v1/forms/${formId}/transfer`).send({ workspace_id: to.workspace_id });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const accept = (transferId: string, to: BootstrappedWorkspace) => api.call('post', `/v1/transfers/${transferId}/accept`, to.live_admin_key);

type Area = 'forms' | 'formLogos' | 'submissions' | 'rescoreJobs' | 'integrations' | 'transfers';

/**
 * Runs `first` once, just before the next call of the store's `method`: the request that calls it has made its
 * reads and not yet its write. The method is restored after that call.
 */
function beforeNextWrite<A extends Area>(area: A, method: keyof Store[A] & string, first: () => Promise<unknown>): void {
  const target = api.store[area] as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = target[method]!;
  target[method] = async (...args: unknown[]) => {
    target[method] = original;
    await first();
    return original.apply(target, args);
  };
}

/** The form's rows the old workspace still holds, by table. */
async function leftBehind(formId: string, to: BootstrappedWorkspace) {
  const count = async (sql: string) => Number((await api.rows(sql, formId, to.workspace_id))[0]!.n);
  return {
    submissions: await count('SELECT COUNT(*) AS n FROM submissions WHERE form_id = ? AND workspace_id <> ?'),
    rescoreJobs: await count('SELECT COUNT(*) AS n FROM rescore_jobs WHERE form_id = ? AND workspace_id <> ?'),
    submissionEvents: await count(`SELECT COUNT(*) AS n FROM events WHERE form_id = ? AND type LIKE 'submission.%' AND workspace_id <> ?`),
  };
}

const nothingLeft = { submissions: 0, rescoreJobs: 0, submissionEvents: 0 };

describe('when the accept lands between the sender’s read of the form and its write', () => {
  it('then a PATCH by the sender answers 404 and the new owner’s form is unchanged', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm(api, { name: 'Before', steps });
    const transfer = await offer(form.id, other);
    beforeNextWrite('forms', 'update', async () => expect((await accept(transfer, other)).status).toBe(200));
    const patched = await api.call('patch', `/v1/forms/${form.id}`).send({ name: 'Sender wrote this' });
    expectProblem(patched, 404, 'not_found', 'resource_not_found');
    const seen = await api.call('get', `/v1/forms/${form.id}`, other.live_admin_key);
    expect(seen.status).toBe(200);
    expect(seen.body.name).toBe('Before');
  });

  it('then a logo the sender uploads answers 404, its bytes are not stored and the new owner’s form has no logo', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm(api, { name: 'Logo', steps });
    const transfer = await offer(form.id, other);
    beforeNextWrite('formLogos', 'stage', async () => expect((await accept(transfer, other)).status).toBe(200));
    const uploaded = await api.call('put', `/v1/forms/${form.id}/logo`).set('Content-Type', 'image/png').send(pngImage(32, 32));
    expectProblem(uploaded, 404, 'not_found', 'resource_not_found');
    expect(await api.rows('SELECT sha256 FROM form_logos WHERE form_id = ?', form.id)).toEqual([]);
    expect((await api.call('get', `/v1/forms/${form.id}`, other.live_admin_key)).body).toMatchObject({ version: 1, logo: null });
  });

  it('then a DELETE by the sender answers 404 and the form stays with the new owner', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm(api, { name: 'Kept', steps });
    const transfer = await offer(form.id, other);
    beforeNextWrite('forms', 'delete', async () => expect((await accept(transfer, other)).status).toBe(200));
    const deleted = await api.call('delete', `/v1/forms/${form.id}`);
    expectProblem(deleted, 404, 'not_found', 'resource_not_found');
    expect((await api.call('get', `/v1/forms/${form.id}`, other.live_admin_key)).status).toBe(200);
  });

  it('then a submission to it through the sender’s key answers 404 and nothing of it stays in the old workspace', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm(api, { name: 'Submitted', steps });
    const transfer = await offer(form.id, other);
    beforeNextWrite('submissions', 'insert', async () => expect((await accept(transfer, other)).status).toBe(200));
    const created = await api.call('post', '/v1/submissions').send({ form_id: form.id, answers });
    expectProblem(created, 404, 'not_found', 'resource_not_found');
    expect(await leftBehind(form.id, other)).toEqual(nothingLeft);
    expect((await api.rows('SELECT id FROM submissions WHERE form_id = ?', form.id)).length).toBe(0);
  });

  it('then a bulk rescore started by the sender answers 404 and no job stays in the old workspace', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm(api, { name: 'Rescored', steps });
    await submit(api, { form_id: form.id, answers });
    const transfer = await offer(form.id, other);
    beforeNextWrite('rescoreJobs', 'create', async () => expect((await accept(transfer, other)).status).toBe(200));
    const started = await api.call('post', `/v1/forms/${form.id}/rescore`);
    expectProblem(started, 404, 'not_found', 'resource_not_found');
    expect(await leftBehind(form.id, other)).toEqual(nothingLeft);
  });

  it('then the sender’s rescore of one of its submissions answers 404 and sends no event to the old workspace', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm(api, { name: 'One rescored', steps });
    const submission = await submit(api, { form_id: form.id, answers });
    const transfer = await offer(form.id, other);
    beforeNextWrite('submissions', 'rescore', async () => expect((await accept(transfer, other)).status).toBe(200));
    const rescored = await api.call('post', `/v1/submissions/${submission.id}/rescore`);
    expectProblem(rescored, 404, 'not_found', 'resource_not_found');
    expect(await leftBehind(form.id, other)).toEqual(nothingLeft);
  });

  it('then the sender’s completion of a partial submission answers 404 and the new owner sees it still partial', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm(api, { name: 'One resumed', steps });
    const started = await submit(api, { form_id: form.id, answers: {}, status: 'partial' });
    const transfer = await offer(form.id, other);
    beforeNextWrite('submissions', 'resume', async () => expect((await accept(transfer, other)).status).toBe(200));
    const completed = await api.call('patch', `/v1/submissions/${started.id}`).send({ answers, status: 'completed' });
    expectProblem(completed, 404, 'not_found', 'resource_not_found');
    const seen = await api.call('get', `/v1/submissions/${started.id}`, other.live_admin_key);
    expect({ status: seen.status, submission: seen.body.status, answers: seen.body.answers }).toEqual({
      status: 200,
      submission: 'partial',
      answers: {},
    });
    expect(await leftBehind(form.id, other)).toEqual(nothingLeft);
  });

  it('then the sender’s delete of one of its submissions answers 404 and the new owner keeps it', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm(api, { name: 'One deleted', steps });
    const submission = await submit(api, { form_id: form.id, answers });
    const transfer = await offer(form.id, other);
    beforeNextWrite('submissions', 'delete', async () => expect((await accept(transfer, other)).status).toBe(200));
    const deleted = await api.call('delete', `/v1/submissions/${submission.id}`);
    expectProblem(deleted, 404, 'not_found', 'resource_not_found');
    expect((await api.call('get', `/v1/submissions/${submission.id}`, other.live_admin_key)).status).toBe(200);
  });

  it('then a second transfer the sender asks for answers 404 and leaves no pending offer of a form it does not hold', async () => {
    const other = await api.otherWorkspace();
    const third = await api.otherWorkspace();
    const form = await createForm(api, { name: 'Offered twice', steps });
    const transfer = await offer(form.id, other);
    beforeNextWrite('transfers', 'create', async () => expect((await accept(transfer, other)).status).toBe(200));
    const again = await api.call('post', `/v1/forms/${form.id}/transfer`).send({ workspace_id: third.workspace_id });
    expectProblem(again, 404, 'not_found', 'resource_not_found');
    expect(await api.rows(`SELECT id FROM form_transfers WHERE form_id = ? AND status = 'pending'`, form.id)).toEqual([]);
  });

  it('then an integration the sender limits to the form is refused as naming no form of its workspace', async () => {
    const other = await api.otherWorkspace();
    const form = await createForm(api, { name: 'Hooked', steps });
    const transfer = await offer(form.id, other);
    beforeNextWrite('integrations', 'create', async () => expect((await accept(transfer, other)).status).toBe(200));
    const created = await api.call('post', '/v1/integrations').send({ url: PUBLIC_URL, events: ['submission.created'], form_id: form.id });
    expect(created.status, JSON.stringify(created.body)).toBe(422);
    expect(created.body.details.errors[0]).toMatchObject({ pointer: '/form_id', code: 'not_found' });
    const hooks = await api.rows('SELECT id FROM integrations WHERE form_id = ?', form.id);
    expect(hooks).toEqual([]);
  });
});

describe('when the form is deleted between a submission’s read of it and its write', () => {
  it('then the submission answers 404, not 500', async () => {
    const form = await createForm(api, { name: 'Vanishing', steps });
    beforeNextWrite('submissions', 'insert', async () => expect((await api.call('delete', `/v1/forms/${form.id}`)).status).toBe(200));
    const created = await api.call('post', '/v1/submissions').send({ form_id: form.id, answers });
    expectProblem(created, 404, 'not_found', 'resource_not_found');
    expect(await api.rows('SELECT id FROM submissions WHERE form_id = ?', form.id)).toEqual([]);
  });
});

describe('when requests are sent at the same moment', () => {
  // Each round's outcome is checked and the wrong ones collected, so a failure tells how many rounds went wrong.
  const rounds = 10;
  // Submissions 10 ms apart from the competing request's start, so that on PostgreSQL rounds see some land before it
  // and some after (sent all at once, one side won every round).
  const staggered = async <T>(index: number, request: () => PromiseLike<T>): Promise<T> => {
    await new Promise((resolve) => setTimeout(resolve, index * 10));
    return request();
  };
  const wrongRounds = async (round: (index: number) => Promise<Record<string, unknown> | undefined>) => {
    const wrong: Array<Record<string, unknown>> = [];
    for (let index = 0; index < rounds; index++) {
      const outcome = await round(index);
      if (outcome) wrong.push({ round: index, ...outcome });
    }
    return wrong;
  };

  it('then of an accept and the sender’s DELETE exactly one wins, and the form is where the winner left it', async () => {
    const other = await api.otherWorkspace();
    const wrong = await wrongRounds(async (index) => {
      const form = await createForm(api, { name: `Contested ${index}`, steps });
      const transfer = await offer(form.id, other);
      const [accepted, deleted] = await Promise.all([accept(transfer, other), api.call('delete', `/v1/forms/${form.id}`)]);
      const owned = (await api.call('get', `/v1/forms/${form.id}`, other.live_admin_key)).status;
      const outcome = { accept: accepted.status, delete: deleted.status, owned };
      const acceptWon = outcome.accept === 200 && outcome.delete === 404 && owned === 200;
      const deleteWon = outcome.accept === 409 && outcome.delete === 200 && owned === 404;
      return acceptWon || deleteWon ? undefined : outcome;
    });
    expect(wrong).toEqual([]);
  });

  it('then submissions arriving while the form moves are each either refused or the new owner’s, with their events', async () => {
    const other = await api.otherWorkspace();
    const wrong = await wrongRounds(async (index) => {
      const form = await createForm(api, { name: `Busy ${index}`, steps });
      const transfer = await offer(form.id, other);
      const send = (index: number) => staggered(index, () => api.call('post', '/v1/submissions').send({ form_id: form.id, answers }));
      const [accepted, ...sent] = await Promise.all([accept(transfer, other), ...Array.from({ length: 6 }, (_, index) => send(index))]);
      const listed = await api.call('get', `/v1/submissions?form_id=${form.id}&limit=100`, other.live_admin_key);
      const acknowledged = sent.filter((res) => res.status === 201).map((res) => res.body.id as string);
      const outcome = {
        accept: accepted.status,
        unexpected: sent.map((res) => res.status).filter((status) => status !== 201 && status !== 404),
        leftBehind: await leftBehind(form.id, other),
        notListed: acknowledged.filter((id) => !listed.body.data.some((submission: { id: string }) => submission.id === id)).length,
      };
      const right = outcome.accept === 200 && outcome.unexpected.length === 0 && outcome.notListed === 0;
      return right && isDeepStrictEqual(outcome.leftBehind, nothingLeft) ? undefined : outcome;
    });
    expect(wrong).toEqual([]);
  });

  it('then submissions arriving while the form is deleted answer 201 or 404 and the delete 200, never 500', async () => {
    const wrong = await wrongRounds(async (index) => {
      const form = await createForm(api, { name: `Doomed ${index}`, steps });
      const send = (index: number) => staggered(index, () => api.call('post', '/v1/submissions').send({ form_id: form.id, answers }));
      const [deleted, ...sent] = await Promise.all([
        api.call('delete', `/v1/forms/${form.id}`),
        ...Array.from({ length: 6 }, (_, index) => send(index)),
      ]);
      const outcome = {
        delete: deleted.status,
        unexpected: sent.map((res) => res.status).filter((status) => status !== 201 && status !== 404),
        remaining: (await api.rows('SELECT id FROM submissions WHERE form_id = ?', form.id)).length,
      };
      return outcome.delete === 200 && outcome.unexpected.length === 0 && outcome.remaining === 0 ? undefined : outcome;
    });
    expect(wrong).toEqual([]);
  });
});
