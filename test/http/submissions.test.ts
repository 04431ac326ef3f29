import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createForm, type Form, submit } from '../support/factories.js';
import { useWatchedApi } from '../support/http-checks.js';
import { anaAnswers, anaHidden, budgetAnswers, demoForm, noBudgetAnswers, recordingEvents, testClock } from './submissions-support.js';

const clock = testClock('2026-03-02T09:00:00.000Z');
const events = recordingEvents();
const highLimits = { perKeyPerSecond: 100_000, perWorkspacePerMinute: 10_000_000, failedAuthPerAddressPerMinute: 10_000 };
const api = useWatchedApi({ now: clock.now, events: events.publisher, rateLimits: highLimits });
let form: Form;

beforeAll(async () => {
  form = await createForm(api, demoForm());
});
beforeEach(() => {
  events.published.length = 0;
});

describe('POST /v1/submissions', () => {
  it('when answers follow the form, then 201 with Location, the visited steps, the score, grade and breakdown', async () => {
    const res = await api.call('post', '/v1/submissions').send({ form_id: form.id, answers: anaAnswers(), hidden: anaHidden() });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/v1/submissions/${res.body.id}`);
    expect(res.body).toMatchObject({
      object: 'submission',
      form_id: form.id,
      form_version: 1,
      status: 'completed',
      test: false,
      answers: anaAnswers(),
      hidden: { utm_source: 'linkedin' },
      visited_steps: ['contact', 'company', 'budget', 'finish'],
      score: 65,
      grade: 'A',
      score_breakdown: [
        { source: 'option', field: 'company_size', option: '201_plus', points: 25 },
        { source: 'rule', rule_id: 'big_budget', points: 40 },
      ],
      scored_at: '2026-03-02T09:00:00.000Z',
      created_at: '2026-03-02T09:00:00.000Z',
      updated_at: '2026-03-02T09:00:00.000Z',
      request_id: res.headers['x-request-id'],
    });
    expect(res.body.id).toMatch(/^sub_[0-9A-Za-z]{24}$/);
  });

  it('when a completed submission is stored, then submission.created and then submission.completed carry it', async () => {
    const created = await submit(api, { form_id: form.id, answers: anaAnswers() });
    expect(events.published.map((event) => event.type)).toEqual(['submission.created', 'submission.completed']);
    const { request_id: _requestId, ...submission } = created;
    for (const event of events.published) {
      expect(event).toMatchObject({
        environment: 'live',
        formId: form.id,
        workspaceId: api.workspace.workspace_id,
        data: { object: submission },
      });
    }
  });

  it('when a partial submission is stored, then only submission.created is emitted', async () => {
    await submit(api, { form_id: form.id, answers: { full_name: 'Tom', email: 'tom@brightdesk.example' }, status: 'partial' });
    expect(events.published.map((event) => event.type)).toEqual(['submission.created']);
  });

  it('when the logic skips a step, then visited_steps leaves it out and its required field is not needed', async () => {
    const created = await submit(api, { form_id: form.id, answers: noBudgetAnswers() });
    expect(created).toMatchObject({ visited_steps: ['contact', 'company', 'finish'], score: 10, grade: 'C', hidden: {} });
  });

  it('when answers are wrong in several fields, then 422 invalid_answers with one entry per field, pointing into answers', async () => {
    const answers = { ...noBudgetAnswers(), email: 'not-an-email', company_size: undefined, budget_usd: 5, surprise: 'x' };
    const res = await api.call('post', '/v1/submissions').send({ form_id: form.id, answers });
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: 'validation_error', code: 'invalid_answers', status: 422 });
    const byField = Object.fromEntries(res.body.details.errors.map((issue: Record<string, string>) => [issue.field, issue]));
    expect(Object.keys(byField).sort()).toEqual(['budget_usd', 'company_size', 'email', 'surprise']);
    expect(byField.email).toMatchObject({ location: 'body', pointer: '/answers/email', code: 'invalid_email' });
    expect(byField.company_size).toMatchObject({ pointer: '/answers/company_size', code: 'required' });
    // has_budget is false, so the logic never shows the budget step.
    expect(byField.budget_usd).toMatchObject({ pointer: '/answers/budget_usd', code: 'not_visited' });
    expect(byField.surprise).toMatchObject({ pointer: '/answers/surprise', code: 'unknown_field' });
    expect(res.body.details.errors).toHaveLength(4);
  });

  it('when a partial submission stops early, then required fields are not enforced and the path ends at the last answered step', async () => {
    const created = await submit(api, {
      form_id: form.id,
      answers: { full_name: 'Tom', email: 'tom@brightdesk.example' },
      status: 'partial',
    });
    expect(created).toMatchObject({ status: 'partial', visited_steps: ['contact'], score: 0, grade: 'C' });
  });

  it('when the form does not exist, then 404 resource_not_found', async () => {
    const res = await api.call('post', '/v1/submissions').send({ form_id: 'form_000000000000000000000000', answers: {} });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ type: 'not_found', code: 'resource_not_found' });
  });

  it('when the body does not match the schema, then 400 invalid_parameters lists every issue', async () => {
    const res = await api.call('post', '/v1/submissions').send({ form_id: 'nope', status: 'done', extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_parameters');
    const pointers = res.body.details.errors.map((issue: { pointer: string }) => issue.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/form_id', '/status', '/answers', '/extra']));
  });

  it('when the body is not valid JSON, then 400 invalid_json', async () => {
    const res = await api.call('post', '/v1/submissions').set('Content-Type', 'application/json').send('{"form_id":');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_json');
  });

  it('when a read-only key submits, then 403 insufficient_scope', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const res = await api.call('post', '/v1/submissions', key.secret).send({ form_id: form.id, answers: anaAnswers() });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });

  it('when a key attached to another form submits, then 403 form_not_attached', async () => {
    const other = await createForm(api, demoForm());
    const key = await api.createKey({ environment: 'live', scope: 'read_write', attachment: { type: 'form', form_id: other.id } });
    const res = await api.call('post', '/v1/submissions', key.secret).send({ form_id: form.id, answers: anaAnswers() });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('form_not_attached');
    const own = await api.call('post', '/v1/submissions', key.secret).send({ form_id: other.id, answers: anaAnswers() });
    expect(own.status).toBe(201);
  });

  it('when a POST is repeated with the same Idempotency-Key and body, then the first response is replayed and one submission exists', async () => {
    const own = await createForm(api, demoForm());
    const body = { form_id: own.id, answers: anaAnswers() };
    const first = await api.call('post', '/v1/submissions').set('Idempotency-Key', 'retry-1').send(body);
    const again = await api.call('post', '/v1/submissions').set('Idempotency-Key', 'retry-1').send(body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect({ ...again.body, request_id: null }).toEqual({ ...first.body, request_id: null });
    const list = await api.call('get', `/v1/submissions?form_id=${own.id}`);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([first.body.id]);

    const changed = await api
      .call('post', '/v1/submissions')
      .set('Idempotency-Key', 'retry-1')
      .send({ ...body, status: 'partial' });
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe('idempotency_conflict');
  });
});

describe('GET /v1/submissions/{id}', () => {
  it('when the submission exists, then 200 with what was stored', async () => {
    const created = await submit(api, { form_id: form.id, answers: anaAnswers(), hidden: anaHidden() });
    const res = await api.call('get', `/v1/submissions/${created.id}`);
    expect(res.status).toBe(200);
    expect({ ...res.body, request_id: null }).toEqual({ ...created, request_id: null });
  });

  it('when no submission has the id, then 404 resource_not_found', async () => {
    const res = await api.call('get', '/v1/submissions/sub_000000000000000000000000');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('resource_not_found');
  });

  it('when the id is malformed, then 400 invalid_parameters on the path', async () => {
    const res = await api.call('get', '/v1/submissions/form_000000000000000000000000');
    expect(res.status).toBe(400);
    expect(res.body.details.errors[0]).toMatchObject({ location: 'path', pointer: '/id' });
  });

  it('when a key attached to another form reads it, then 403 form_not_attached', async () => {
    const created = await submit(api, { form_id: form.id, answers: anaAnswers() });
    const other = await createForm(api, demoForm());
    const key = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'form', form_id: other.id } });
    const res = await api.call('get', `/v1/submissions/${created.id}`, key.secret);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('form_not_attached');
  });

  it('when the submission belongs to another workspace, then 404', async () => {
    const created = await submit(api, { form_id: form.id, answers: anaAnswers() });
    const other = await api.otherWorkspace();
    const res = await api.call('get', `/v1/submissions/${created.id}`, other.live_admin_key);
    expect(res.status).toBe(404);
  });
});

describe('GET /v1/submissions', () => {
  let listForm: Form;
  const ids: string[] = [];
  beforeAll(async () => {
    listForm = await createForm(api, demoForm());
    // Five submissions one minute apart; the clock moves back afterwards for the other tests.
    for (let minute = 0; minute < 5; minute++) {
      clock.set(`2026-03-01T10:0${minute}:00.000Z`);
      const answers = minute % 2 === 0 ? budgetAnswers(60_000 + minute, '201_plus') : noBudgetAnswers('1_10');
      ids.unshift((await submit(api, { form_id: listForm.id, answers, status: minute === 4 ? 'partial' : 'completed' })).id);
    }
    clock.set('2026-03-02T09:00:00.000Z');
  });
  const list = (query: string, key?: string) => api.call('get', `/v1/submissions?form_id=${listForm.id}&${query}`, key);

  it('when paging forward with starting_after, then every submission comes once, newest first, and has_more ends false', async () => {
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const res = await list(`limit=2${cursor}`);
      expect(res.status).toBe(200);
      expect(res.body.object).toBe('list');
      seen.push(...res.body.data.map((s: { id: string }) => s.id));
      if (!res.body.has_more) break;
      cursor = `&starting_after=${res.body.data.at(-1).id}`;
    }
    expect(seen).toEqual(ids);
  });

  it('when paging back with ending_before, then the previous page comes in the same order', async () => {
    const res = await list(`limit=2&ending_before=${ids[3]}`);
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual([ids[1], ids[2]]);
    expect(res.body.has_more).toBe(true);
  });

  it('when both cursors are given, then 400 mutually_exclusive', async () => {
    const res = await list(`starting_after=${ids[0]}&ending_before=${ids[2]}`);
    expect(res.status).toBe(400);
    expect(res.body.details.errors[0]).toMatchObject({ location: 'query', pointer: '/ending_before', code: 'mutually_exclusive' });
  });

  it('when the cursor is not in this list, then 400 invalid_cursor', async () => {
    const elsewhere = await submit(api, { form_id: form.id, answers: anaAnswers() });
    const res = await list(`starting_after=${elsewhere.id}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_cursor', details: { errors: [{ pointer: '/starting_after', code: 'not_found' }] } });
  });

  it('when filtering by status, min_score and creation time, then only matching submissions come back', async () => {
    const idsOf = async (query: string) => (await list(query)).body.data.map((s: { id: string }) => s.id);
    expect(await idsOf('status=partial')).toEqual([ids[0]]);
    expect(await idsOf('min_score=65')).toEqual([ids[0], ids[2], ids[4]]);
    const time = (value: string) => encodeURIComponent(value);
    expect(await idsOf(`created_gte=${time('2026-03-01T10:01:00Z')}&created_lt=${time('2026-03-01T10:03:00.000Z')}`)).toEqual([
      ids[2],
      ids[3],
    ]);
    // An offset is a time like any other: 11:02+01:00 is 10:02Z.
    expect(await idsOf(`created_gte=${time('2026-03-01T11:02:00+01:00')}&status=completed`)).toEqual([ids[1], ids[2]]);
  });

  it('when no form filter is given, then the workspace list includes every form', async () => {
    const res = await api.call('get', '/v1/submissions?limit=100');
    const formIds = new Set(res.body.data.map((s: { form_id: string }) => s.form_id));
    expect(formIds.has(listForm.id) && formIds.has(form.id)).toBe(true);
  });

  it('when filter values are invalid, then 400 invalid_parameters names each one', async () => {
    const res = await api.call(
      'get',
      '/v1/submissions?status=done&min_score=high&created_gte=yesterday&limit=500&form_id=sub_000000000000000000000000',
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_parameters');
    const pointers = res.body.details.errors.map((issue: { pointer: string }) => issue.pointer);
    expect(new Set(pointers)).toEqual(new Set(['/created_gte', '/form_id', '/limit', '/min_score', '/status']));
  });

  it('when a query parameter is unknown, then 400 additional_property', async () => {
    const res = await api.call('get', '/v1/submissions?colour=red');
    expect(res.status).toBe(400);
    expect(res.body.details.errors).toEqual([
      expect.objectContaining({ location: 'query', pointer: '/colour', code: 'additional_property' }),
    ]);
  });

  it('when a key is attached to a form, then it lists only that form, and filtering on another form is 403', async () => {
    const key = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'form', form_id: listForm.id } });
    const res = await api.call('get', '/v1/submissions?limit=100', key.secret);
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual(ids);
    const other = await api.call('get', `/v1/submissions?form_id=${form.id}`, key.secret);
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('form_not_attached');
  });

  it('when a key is attached to a folder, then it lists only submissions of the forms in that folder', async () => {
    const folder = await api.call('post', '/v1/folders').send({ name: 'Campaigns' });
    const inFolder = await createForm(api, demoForm({ folder_id: folder.body.id }));
    const kept = await submit(api, { form_id: inFolder.id, answers: anaAnswers() });
    const key = await api.createKey({ environment: 'live', scope: 'read', attachment: { type: 'folder', folder_id: folder.body.id } });
    const res = await api.call('get', '/v1/submissions', key.secret);
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual([kept.id]);
    expect((await api.call('get', `/v1/submissions?form_id=${listForm.id}`, key.secret)).status).toBe(403);
  });
});

describe('DELETE /v1/submissions/{id}', () => {
  it('when the submission exists, then 200 deleted, and it is gone for reads and a second delete', async () => {
    const created = await submit(api, { form_id: form.id, answers: anaAnswers() });
    const res = await api.call('delete', `/v1/submissions/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, object: 'submission', deleted: true, request_id: res.headers['x-request-id'] });
    expect((await api.call('get', `/v1/submissions/${created.id}`)).status).toBe(404);
    expect((await api.call('delete', `/v1/submissions/${created.id}`)).status).toBe(404);
  });

  it('when a read-only key deletes, then 403 insufficient_scope and the submission stays', async () => {
    const created = await submit(api, { form_id: form.id, answers: anaAnswers() });
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const res = await api.call('delete', `/v1/submissions/${created.id}`, key.secret);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect((await api.call('get', `/v1/submissions/${created.id}`)).status).toBe(200);
  });
});

describe('POST /v1/submissions/{id}/rescore', () => {
  it('when the scoring changed, then the stored score stays until rescored, and rescore returns the old and new score', async () => {
    const own = await createForm(api, demoForm());
    const created = await submit(api, { form_id: own.id, answers: anaAnswers() });
    const scoring = {
      rules: [{ id: 'big_budget', when: { field: 'budget_usd', op: 'gte', value: 50000 }, points: 10 }],
      grades: [{ label: 'Hot', min_score: 30 }],
    };
    const patched = await api.call('patch', `/v1/forms/${own.id}`).send({ scoring });
    expect(patched.body.version).toBe(2);
    expect((await api.call('get', `/v1/submissions/${created.id}`)).body).toMatchObject({ score: 65, grade: 'A', form_version: 1 });

    clock.set('2026-03-02T12:00:00.000Z');
    events.published.length = 0;
    const res = await api.call('post', `/v1/submissions/${created.id}/rescore`);
    clock.set('2026-03-02T09:00:00.000Z');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      score: 35,
      grade: 'Hot',
      form_version: 2,
      previous_score: 65,
      previous_grade: 'A',
      previous_form_version: 1,
      score_breakdown: [
        { source: 'option', field: 'company_size', option: '201_plus', points: 25 },
        { source: 'rule', rule_id: 'big_budget', points: 10 },
      ],
      scored_at: '2026-03-02T12:00:00.000Z',
      updated_at: '2026-03-02T12:00:00.000Z',
      created_at: created.created_at,
      answers: created.answers,
      visited_steps: created.visited_steps,
    });
    expect(events.published).toMatchObject([
      {
        type: 'submission.rescored',
        data: { object: { id: created.id, score: 35 }, previous_attributes: { score: 65, grade: 'A', form_version: 1 } },
      },
    ]);
    expect((await api.call('get', `/v1/submissions/${created.id}`)).body).toMatchObject({ score: 35, grade: 'Hot', form_version: 2 });
  });

  it('when a field was removed from the form, then its answer adds nothing and the answers stay as submitted', async () => {
    const own = await createForm(api, demoForm());
    const created = await submit(api, { form_id: own.id, answers: anaAnswers() });
    const steps = own.steps.map((step: { id: string; fields: Array<{ ref: string }> }) =>
      step.id === 'company' ? { ...step, fields: step.fields.filter((field) => field.ref !== 'company_size') } : step,
    );
    expect((await api.call('patch', `/v1/forms/${own.id}`).send({ steps })).status).toBe(200);
    const res = await api.call('post', `/v1/submissions/${created.id}/rescore`);
    expect(res.body).toMatchObject({ score: 40, grade: 'B', previous_score: 65, answers: anaAnswers() });
  });

  it('when no submission has the id, then 404', async () => {
    const res = await api.call('post', '/v1/submissions/sub_000000000000000000000000/rescore');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('resource_not_found');
  });

  it('when a read-only key rescores, then 403 insufficient_scope', async () => {
    const created = await submit(api, { form_id: form.id, answers: anaAnswers() });
    const key = await api.createKey({ environment: 'live', scope: 'read' });
    const res = await api.call('post', `/v1/submissions/${created.id}/rescore`, key.secret);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });
});
