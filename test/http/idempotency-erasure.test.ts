/**
 * Responses kept for Idempotency-Key retries forget the person with their submission. Whatever represents the
 * submission in a response (the workspace's `submission`, the page's `public_submission` with its resume token, a
 * resume, a resume that added the address), a retry after the submission was erased, deleted or deleted with its
 * form gets 409 `idempotency_key_erased`: never the stored answer, never the request made again.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { contractOf, loadContract, type OpenApiDocument } from '../../src/http/contract-document.js';
import { createForm, type Form } from '../support/factories.js';
import { expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { createPublishableKey, type PublishableKey } from '../support/publishable-keys.js';
import { storedRows } from '../support/stores.js';
import { demoForm } from './submissions-support.js';

const api = useWatchedApi(() => ({ rateLimits: generousLimits }));
let key: PublishableKey;

beforeAll(async () => {
  key = await createPublishableKey(api, { environment: 'live' });
});

/** A request that answered 2xx under its Idempotency-Key, and what it answered. */
interface Answered {
  name: string;
  retry: () => Promise<{ status: number; body: Record<string, unknown>; headers: Record<string, string> }>;
  first: { status: number; body: Record<string, unknown> };
}

/**
 * A person's requests of every kind that answers with a submission, each under its own Idempotency-Key: a page's
 * create and its resume, a page's create without the address and the resume that adds it, a secret key's create
 * and its rescore. Every one is answered, and its retry replayed, before anything is erased.
 */
async function answeredRequests(form: Form, email: string, tag: string) {
  const publicPost = (idempotencyKey: string, body: object) => () =>
    api.call('post', '/v1/public/submissions', key.value).set('Idempotency-Key', idempotencyKey).send(body);
  const publicPatch = (idempotencyKey: string, id: string, body: object) => () =>
    api.call('patch', `/v1/public/submissions/${id}`, key.value).set('Idempotency-Key', idempotencyKey).send(body);
  const answered: Answered[] = [];
  const answer = async (name: string, retry: Answered['retry']) => {
    const first = await retry();
    expect(first.status, `${name}: ${JSON.stringify(first.body)}`).toBeLessThan(300);
    answered.push({ name, retry, first });
    return first.body;
  };

  const created = await answer(
    'public create',
    publicPost(`${tag}-public-create`, { form_id: form.id, answers: { full_name: 'Noa Brandt', email }, status: 'partial' }),
  );
  await answer(
    'public resume',
    publicPatch(`${tag}-public-resume`, created.id as string, {
      resume_token: created.resume_token,
      answers: { company_size: '1_10' },
      status: 'partial',
    }),
  );
  const nameless = await answer(
    'public create without the address',
    publicPost(`${tag}-public-create-2`, { form_id: form.id, answers: { full_name: 'Noa B.' }, status: 'partial' }),
  );
  await answer(
    'public resume that adds the address',
    publicPatch(`${tag}-public-resume-2`, nameless.id as string, {
      resume_token: nameless.resume_token,
      answers: { email },
      status: 'partial',
    }),
  );
  const secret = await answer('secret-key create', () =>
    api
      .call('post', '/v1/submissions')
      .set('Idempotency-Key', `${tag}-create`)
      .send({ form_id: form.id, answers: { full_name: 'Noa Brandt', email }, status: 'partial' }),
  );
  await answer('secret-key rescore', () =>
    api.call('post', `/v1/submissions/${secret.id}/rescore`).set('Idempotency-Key', `${tag}-rescore`),
  );

  for (const { name, retry, first } of answered) {
    const replay = await retry();
    expect(replay.headers['idempotent-replayed'], name).toBe('true');
    expect({ ...replay.body, request_id: undefined }, name).toEqual({ ...first.body, request_id: undefined });
  }
  return { answered, submissionIds: [created.id as string, nameless.id as string, secret.id as string] };
}

async function expectForgotten(answered: Answered[], submissionIds: string[], form: Form) {
  for (const { name, retry } of answered) {
    const res = await retry();
    expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(409);
    expectProblem(res as never, 409, 'conflict_error', 'idempotency_key_erased');
    expect(res.headers['idempotent-replayed'], name).toBeUndefined();
    expect(JSON.stringify(res.body), name).not.toMatch(/noa|brandt|srt_|sub_/i);
  }
  // Not only refused: the stored copies are gone.
  for (const id of submissionIds) {
    const kept = await storedRows(api.store, 'SELECT sealed_response, erased_at FROM idempotency_keys WHERE submission_id = ?', id);
    expect(kept.length).toBeGreaterThan(0);
    for (const row of kept) expect(row).toEqual({ sealed_response: null, erased_at: expect.anything() });
  }
  // Nothing was made again by the retries.
  const listed = await api.call('get', `/v1/submissions?form_id=${form.id}`);
  expect(listed.status === 404 || listed.body.data.length === 0, JSON.stringify(listed.body)).toBe(true);
}

describe('responses kept for retries, after their submissions are gone', () => {
  it('when the person is erased, then a retry of every request that answered with their submissions gets 409 idempotency_key_erased', async () => {
    const form = await createForm(api, demoForm());
    const { answered, submissionIds } = await answeredRequests(form, 'noa.brandt@example.org', 'erase');

    const erased = await api.call('post', '/v1/submissions/erase').send({ email: 'Noa.Brandt@example.org' });
    expect(erased.status).toBe(200);
    expect(erased.body.deleted_submissions).toBe(3);

    await expectForgotten(answered, submissionIds, form);
  });

  it('when the submissions are deleted one by one, then a retry of every request that answered with one gets 409 idempotency_key_erased', async () => {
    const form = await createForm(api, demoForm());
    const { answered, submissionIds } = await answeredRequests(form, 'noa.brandt@example.org', 'delete');

    for (const id of submissionIds) expect((await api.call('delete', `/v1/submissions/${id}`)).status).toBe(200);

    await expectForgotten(answered, submissionIds, form);
  });

  it('when their form is deleted, then a retry of every request that answered with one of its submissions gets 409 idempotency_key_erased', async () => {
    const form = await createForm(api, demoForm());
    const { answered, submissionIds } = await answeredRequests(form, 'noa.brandt@example.org', 'form');

    expect((await api.call('delete', `/v1/forms/${form.id}`)).status).toBe(200);

    await expectForgotten(answered, submissionIds, form);
  });

  it("when another person's submissions are erased, then this person's retries are still replayed", async () => {
    const form = await createForm(api, demoForm());
    const { answered } = await answeredRequests(form, 'uma.kept@example.org', 'kept');

    expect((await api.call('post', '/v1/submissions/erase').send({ email: 'someone.else@example.org' })).status).toBe(200);

    for (const { name, retry, first } of answered) {
      const replay = await retry();
      expect(replay.status, name).toBe(first.status);
      expect(replay.headers['idempotent-replayed'], name).toBe('true');
      expect({ ...replay.body, request_id: undefined }, name).toEqual({ ...first.body, request_id: undefined });
    }
  });
});

describe('which responses are linked to a submission', () => {
  const contract = loadContract();

  it('when the document is read, then every replayable operation whose success body holds a SubmissionId is linked by that property', () => {
    const linked = contract.operations
      .filter((operation) => operation.acceptsIdempotencyKey && operation.submissionIdProperty !== null)
      .map((operation) => `${operation.operationId} ${operation.submissionIdProperty}`)
      .sort();
    expect(linked).toEqual([
      'createPublicSubmission id',
      'createSubmission id',
      'rescoreSubmission id',
      'updatePublicSubmission id',
      'updateSubmission id',
    ]);
    const unlinked = (id: string) => contract.operations.find((operation) => operation.operationId === id)!.submissionIdProperty;
    expect([unlinked('createForm'), unlinked('eraseSubmissions'), unlinked('dispatchIntegration')]).toEqual([null, null, null]);
  });

  it('when an operation answers with a new representation that names its submission, then it is linked without a change to the server', () => {
    const document = structuredClone(contract.document) as OpenApiDocument & { paths: Record<string, Record<string, unknown>> };
    const schemas = document.components.schemas as Record<string, unknown>;
    const submissionId = { $ref: '#/components/schemas/SubmissionId' };
    // Its submission's id under another name, in an allOf that adds a keyword, after properties that are not it.
    schemas.SubmissionNote = {
      type: 'object',
      properties: {
        object: { type: 'string', const: 'submission_note' },
        id: { type: 'string' },
        tags: { allOf: [{ type: 'array' }] },
        submission_id: { allOf: [submissionId, { readOnly: true }], description: 'The submission noted.' },
      },
    };
    const json = (schema: object) => ({ description: 'An answer.', content: { 'application/json': { schema } } });
    const form = { $ref: '#/components/schemas/Form' };
    const operationAnswering = (operationId: string, responses: Record<string, unknown>) => ({ post: { operationId, responses } });
    document.paths['/submissions/{id}/notes'] = operationAnswering('createSubmissionNote', {
      '201': json({ allOf: [{ $ref: '#/components/schemas/RequestIdField' }, { $ref: '#/components/schemas/SubmissionNote' }] }),
    });
    // The note only in its second success response.
    document.paths['/notes/{id}'] = operationAnswering('upsertNote', {
      '200': json(form),
      '201': json({ $ref: '#/components/schemas/SubmissionNote' }),
    });
    // A problem that names a submission is not an answer with it.
    document.paths['/notes'] = operationAnswering('createNote', {
      '201': json(form),
      '409': json({ type: 'object', properties: { existing_submission_id: submissionId } }),
    });

    const operations = contractOf(document).operations;
    const property = (id: string) => operations.find((operation) => operation.operationId === id)!.submissionIdProperty;
    expect(property('createSubmissionNote')).toBe('submission_id');
    expect(property('upsertNote')).toBe('submission_id');
    expect(property('createNote')).toBeNull();
  });

  it('when a replayable operation would answer with a submission id deeper than its top level, then the document is refused', () => {
    const submissionId = { $ref: '#/components/schemas/SubmissionId' };
    const json = (schema: object) => ({ description: 'An answer.', content: { 'application/json': { schema } } });
    const nested = {
      'in a nested object': { type: 'object', properties: { note: { type: 'object', properties: { submission: submissionId } } } },
      'in a list': { type: 'object', properties: { data: { type: 'array', items: { oneOf: [submissionId] } } } },
    };
    for (const [where, schema] of Object.entries(nested)) {
      const document = structuredClone(contract.document) as OpenApiDocument & { paths: Record<string, Record<string, unknown>> };
      document.paths['/notes'] = { post: { operationId: 'createNote', responses: { '201': json(schema) } } };
      expect(() => contractOf(document), where).toThrow(/createNote: its 201 body carries a submission id below its top level/);
      // A read is never replayed: the same body on a GET is no kept response to forget.
      document.paths['/notes'] = { get: { operationId: 'listNotes', responses: { '200': json(schema) } } };
      expect(
        contractOf(document).operations.find((operation) => (operation.operationId as string) === 'listNotes')!.submissionIdProperty,
      ).toBeNull();
    }
  });
});
