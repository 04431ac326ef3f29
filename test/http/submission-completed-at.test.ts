/**
 * `completed_at`: when a submission became completed (null until then), the `completed_gte`/`completed_lt` and
 * `updated_lt` filters beside the existing ones, and the export's `completed_at` column.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../support/csv.js';
import { createForm, type Form, submit } from '../support/factories.js';
import { asText, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { demoForm, noBudgetAnswers, testClock } from './submissions-support.js';

const clock = testClock('2026-06-01T08:00:00.000Z');
const api = useWatchedApi({ now: clock.now, rateLimits: generousLimits });
let form: Form;

beforeAll(async () => {
  form = await createForm(api, demoForm());
});

const contact = { full_name: 'Tom Okafor', email: 'tom@brightdesk.example' };
/** A timestamp as a query value: `:` is reserved, so encoded (the request validator refuses it bare). */
const q = encodeURIComponent;
const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((s) => s.id);

describe('completed_at', () => {
  it('when a submission is created completed, then completed_at is its creation time; a partial one has null', async () => {
    clock.set('2026-06-01T09:00:00.000Z');
    const completed = await submit(api, { form_id: form.id, answers: noBudgetAnswers() });
    expect(completed.completed_at).toBe('2026-06-01T09:00:00.000Z');
    const partial = await submit(api, { form_id: form.id, status: 'partial', answers: contact });
    expect(partial.completed_at).toBeNull();
    expect((await api.call('get', `/v1/submissions/${partial.id}`)).body.completed_at).toBeNull();
  });

  it('when a partial submission is completed by PATCH, then completed_at is the time of that PATCH, and a rescore keeps it', async () => {
    clock.set('2026-06-02T09:00:00.000Z');
    const partial = await submit(api, { form_id: form.id, status: 'partial', answers: contact });
    clock.set('2026-06-02T09:30:00.000Z');
    const more = await api.call('patch', `/v1/submissions/${partial.id}`).send({ answers: { company_size: '11_200' } });
    expect(more.body.completed_at).toBeNull();
    clock.set('2026-06-02T10:00:00.000Z');
    const done = await api
      .call('patch', `/v1/submissions/${partial.id}`)
      .send({ status: 'completed', answers: { ...noBudgetAnswers(), ...contact } });
    expect(done.status).toBe(200);
    expect(done.body.completed_at).toBe('2026-06-02T10:00:00.000Z');
    clock.set('2026-06-02T11:00:00.000Z');
    const rescored = await api.call('post', `/v1/submissions/${partial.id}/rescore`);
    expect(rescored.status).toBe(200);
    expect(rescored.body).toMatchObject({ completed_at: '2026-06-02T10:00:00.000Z', updated_at: '2026-06-02T11:00:00.000Z' });
  });
});

describe('completed_gte, completed_lt and updated_lt', () => {
  let early: string;
  let late: string;
  let open: string;
  let own: Form;

  beforeAll(async () => {
    own = await createForm(api, demoForm({ name: 'Completion filters' }));
    clock.set('2026-07-01T09:00:00.000Z');
    early = (await submit(api, { form_id: own.id, answers: noBudgetAnswers() })).id;
    open = (await submit(api, { form_id: own.id, status: 'partial', answers: contact })).id;
    clock.set('2026-07-03T09:00:00.000Z');
    late = (await submit(api, { form_id: own.id, answers: noBudgetAnswers() })).id;
  });

  it('when filtered by completion time, then only submissions completed in the range come back, never a partial one', async () => {
    const from = await api.call('get', `/v1/submissions?form_id=${own.id}&completed_gte=${q('2026-07-02T00:00:00Z')}`);
    expect(from.status).toBe(200);
    expect(ids(from)).toEqual([late]);
    const before = await api.call('get', `/v1/submissions?form_id=${own.id}&completed_lt=${q('2026-07-03T09:00:00.000Z')}`);
    expect(ids(before)).toEqual([early]);
    const all = await api.call('get', `/v1/submissions?form_id=${own.id}&completed_gte=${q('2026-01-01T00:00:00Z')}`);
    expect(ids(all)).toEqual([late, early]);
    expect(ids(all)).not.toContain(open);
  });

  it('when filtered by updated_lt, then only submissions last changed before it come back', async () => {
    const res = await api.call('get', `/v1/submissions?form_id=${own.id}&updated_lt=${q('2026-07-02T00:00:00Z')}`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([open, early]);
    const window = await api.call(
      'get',
      `/v1/submissions?form_id=${own.id}&updated_gte=${q('2026-07-02T00:00:00Z')}&updated_lt=${q('2026-07-04T00:00:00Z')}`,
    );
    expect(ids(window)).toEqual([late]);
  });

  it('when a completion filter is not a timestamp, then 400', async () => {
    expect((await api.call('get', '/v1/submissions?completed_gte=yesterday')).status).toBe(400);
    expect((await api.call('get', '/v1/submissions?updated_lt=soon')).status).toBe(400);
  });

  it('when exported as CSV, then completed_at has its column, empty for a partial submission; the filters apply', async () => {
    const res = await api.call('get', `/v1/submissions/export?form_id=${own.id}&format=csv`).buffer(true).parse(asText);
    const [header, ...rows] = parseCsv(res.body);
    const column = header!.indexOf('completed_at');
    expect(column).toBe(header!.indexOf('updated_at') + 1);
    expect(Object.fromEntries(rows.map((row) => [row[0], row[column]]))).toEqual({
      [late]: '2026-07-03T09:00:00.000Z',
      [open]: '',
      [early]: '2026-07-01T09:00:00.000Z',
    });
    const filtered = await api
      .call('get', `/v1/submissions/export?form_id=${own.id}&format=csv&completed_gte=${q('2026-07-02T00:00:00Z')}`)
      .buffer(true)
      .parse(asText);
    expect(
      parseCsv(filtered.body)
        .slice(1)
        .map((row) => row[0]),
    ).toEqual([late]);
  });
});
