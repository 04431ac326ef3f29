import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { parseCsv } from '../support/csv.js';
import { createForm, createKey, type Form, type Submission, submit } from '../support/factories.js';
import { expectProblem, useWatchedApi } from '../support/http-checks.js';
import { anaAnswers, demoForm, noBudgetAnswers } from './submissions-support.js';

// The workspace's per-minute window is the one nearest exhaustion, so X-RateLimit-Remaining counts every request.
const api = useWatchedApi({
  rateLimits: { perKeyPerSecond: 100_000, perWorkspacePerMinute: 5_000, failedAuthPerAddressPerMinute: 10_000 },
});

/** A download as text, whatever its media type (supertest buffers only the types it knows). */
function download(path: string, options: { accept?: string; key?: string } = {}) {
  const req = api.call('get', path, options.key);
  if (options.accept !== undefined) req.set('Accept', options.accept);
  return req.buffer(true).parse((res, done) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
    });
    res.on('end', () => done(null, text));
  });
}

const lines = (text: string): Submission[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

let form: Form;
let bulk: Form;
/** The bulk form's submissions, newest first: more than two export pages. */
const bulkIds: string[] = [];

beforeAll(async () => {
  form = await createForm(api, demoForm());
  bulk = await createForm(api, demoForm({ name: 'Bulk funnel' }));
  const template = await submit(api, { form_id: bulk.id, answers: noBudgetAnswers() });
  bulkIds.push(template.id);
  // Straight into the store: a thousand HTTP posts would be most of this file's time.
  const start = Date.parse(template.created_at);
  for (let index = 1; index <= 1_050; index++) {
    const at = new Date(start - index * 1_000).toISOString();
    const submission = { ...template, id: newId('sub'), created_at: at, updated_at: at, scored_at: at };
    await api.store.submissions.insert({ submission, workspaceId: api.workspace.workspace_id, environment: 'live' });
    bulkIds.push(submission.id);
  }
});

describe('GET /v1/submissions/export: NDJSON', () => {
  it('when exporting more than two pages, then every submission comes once, in the list order, as a Submission per line', async () => {
    const res = await download(`/v1/submissions/export?form_id=${bulk.id}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="submissions.ndjson"');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.body.endsWith('\n')).toBe(true);
    const records = lines(res.body);
    expect(records.map((s) => s.id)).toEqual(bulkIds);
    expect(records[0]).toMatchObject({ object: 'submission', form_id: bulk.id, test: false });
    expect(records[0]).not.toHaveProperty('request_id');
  });

  it('when reading a later page fails, then the connection is cut mid-download rather than ended as if complete', async () => {
    const { submissions } = api.store;
    const list = submissions.list;
    let calls = 0;
    submissions.list = (...args) => (++calls === 2 ? Promise.reject(new Error('disk gone')) : list.apply(submissions, args));
    try {
      await expect(download(`/v1/submissions/export?form_id=${bulk.id}`)).rejects.toThrow();
    } finally {
      submissions.list = list;
    }
    expect(calls).toBe(2);
  });

  it('when a download broke, then starting_after the last complete record resumes with the rest', async () => {
    const cut = bulkIds[700]!;
    const res = await download(`/v1/submissions/export?form_id=${bulk.id}&starting_after=${cut}`);
    expect(lines(res.body).map((s) => s.id)).toEqual(bulkIds.slice(701));
  });

  it('when the last row of a page is deleted before the next page is read, then the download still completes', async () => {
    const { submissions } = api.store;
    const list = submissions.list;
    const partition = { workspaceId: api.workspace.workspace_id, environment: 'live' as const };
    const boundary = (await submissions.get(partition, bulkIds[499]!))!;
    let calls = 0;
    submissions.list = async (...args) => {
      if (++calls === 2) await submissions.delete(partition, boundary.submission.id);
      return list.apply(submissions, args);
    };
    try {
      const res = await download(`/v1/submissions/export?form_id=${bulk.id}`);
      expect(lines(res.body).map((s) => s.id)).toEqual(bulkIds);
    } finally {
      submissions.list = list;
      if (!(await submissions.get(partition, boundary.submission.id))) await submissions.insert(boundary);
    }
  });

  it('when the last record received was deleted since, then starting_after with its created_at still resumes after it', async () => {
    const partition = { workspaceId: api.workspace.workspace_id, environment: 'live' as const };
    const cut = (await api.store.submissions.get(partition, bulkIds[700]!))!;
    await api.store.submissions.delete(partition, cut.submission.id);
    try {
      const resume = `starting_after=${cut.submission.id}&starting_after_created_at=${encodeURIComponent(cut.submission.created_at)}`;
      const res = await download(`/v1/submissions/export?form_id=${bulk.id}&${resume}`);
      expect(lines(res.body).map((s) => s.id)).toEqual(bulkIds.slice(701));
      const byId = await api.call('get', `/v1/submissions/export?form_id=${bulk.id}&starting_after=${cut.submission.id}`);
      expectProblem(byId, 400, 'validation_error', 'invalid_cursor');
    } finally {
      await api.store.submissions.insert(cut);
    }
  });

  it('when the last record received was rescored out of the filter since, then starting_after_score resumes after its old place', async () => {
    const partition = { workspaceId: api.workspace.workspace_id, environment: 'live' as const };
    const score = (await api.store.submissions.get(partition, bulkIds[0]!))!.submission.score;
    const query = `form_id=${bulk.id}&sort=-score&min_score=${score}`;
    const all = lines((await download(`/v1/submissions/export?${query}`)).body).map((s) => s.id);
    expect(all).toHaveLength(bulkIds.length);
    const cut = (await api.store.submissions.get(partition, all[700]!))!.submission;
    const change = { grade: cut.grade, scoreBreakdown: cut.score_breakdown, formVersion: cut.form_version, at: cut.updated_at };
    await api.store.submissions.rescore(partition, cut.id, { ...change, score: score - 1 });
    try {
      const res = await download(`/v1/submissions/export?${query}&starting_after=${cut.id}&starting_after_score=${score}`);
      expect(lines(res.body).map((s) => s.id)).toEqual(all.slice(701));
    } finally {
      await api.store.submissions.rescore(partition, cut.id, { ...change, score });
    }
  });

  it('when a sort key is sent without starting_after, or for the other sort, then 400 invalid_parameters names it', async () => {
    const alone = await api.call('get', `/v1/submissions/export?form_id=${bulk.id}&starting_after_created_at=2026-01-01T00%3A00%3A00.000Z`);
    expectProblem(alone, 400, 'validation_error', 'invalid_parameters');
    expect(alone.body.details.errors[0]).toMatchObject({ pointer: '/starting_after', code: 'required' });
    const other = await api.call('get', `/v1/submissions/export?form_id=${bulk.id}&starting_after=${bulkIds[1]}&starting_after_score=3`);
    expectProblem(other, 400, 'validation_error', 'invalid_parameters');
    expect(other.body.details.errors[0]).toMatchObject({ pointer: '/starting_after_score', code: 'mutually_exclusive' });
  });

  it('when filters and a sort are given, then the export holds what the list holds, in its order', async () => {
    const ana = await submit(api, { form_id: form.id, answers: anaAnswers() });
    const tom = await submit(api, { form_id: form.id, answers: noBudgetAnswers('201_plus') });
    const list = await api.call('get', `/v1/submissions?form_id=${form.id}&sort=score&grade=A&grade=B&limit=100`);
    const res = await download(`/v1/submissions/export?form_id=${form.id}&sort=score&grade=A&grade=B`);
    const exported = lines(res.body);
    expect(exported.map((s) => s.id)).toEqual(list.body.data.map((s: Submission) => s.id));
    expect(exported.map((s) => s.id)).toEqual(expect.arrayContaining([ana.id, tom.id]));
  });

  it('when the cursor is not in the filtered export, then 400 invalid_cursor before any byte of the download', async () => {
    const res = await api.call('get', `/v1/submissions/export?form_id=${form.id}&starting_after=${bulkIds[3]}`);
    expectProblem(res, 400, 'validation_error', 'invalid_cursor');
  });

  it('when nothing matches, then the download is empty', async () => {
    const res = await download(`/v1/submissions/export?form_id=${bulk.id}&min_score=1000`);
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
  });
});

describe('GET /v1/submissions/export: CSV', () => {
  it('when exported as CSV, then a header row, one row per submission and one column per field ref, RFC 4180', async () => {
    const res = await download(`/v1/submissions/export?form_id=${bulk.id}&format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="submissions.csv"');
    const [header, ...rows] = parseCsv(res.body);
    expect(header).toEqual([
      ...['id', 'form_id', 'form_version', 'created_at', 'updated_at', 'completed_at', 'status', 'test', 'score', 'grade'],
      ...['context.user_agent', 'context.referrer', 'context.landing_url', 'context.utm_source', 'context.utm_medium'],
      ...['context.utm_campaign', 'context.utm_term', 'context.utm_content', 'metadata'],
      ...['full_name', 'email', 'utm_source', 'company_size', 'has_budget', 'budget_usd', 'notes', 'gdpr'],
    ]);
    expect(rows.map((row) => row[0])).toEqual(bulkIds);
    expect(rows[0]).toEqual([
      bulkIds[0],
      bulk.id,
      '1',
      expect.any(String),
      expect.any(String),
      expect.any(String),
      'completed',
      'false',
      '10',
      'C',
      ...Array(8).fill(''),
      '{}',
      'Tom Okafor',
      'tom@brightdesk.example',
      '',
      '11_200',
      'false',
      '',
      '',
      'true',
    ]);
  });

  it('when answers hold commas, quotes, line breaks and Unicode, then they are quoted and come back unchanged', async () => {
    const notes = 'Budget: "big", soon\r\nCall Zoë 👋 after 5\nthanks';
    const s = await submit(api, { form_id: form.id, answers: { ...noBudgetAnswers(), full_name: 'Łukasz, Ünal', notes } });
    const res = await download(`/v1/submissions/export?form_id=${form.id}&format=csv`);
    const [header, ...rows] = parseCsv(res.body);
    const row = rows.find((cells) => cells[0] === s.id)!;
    expect(row[header!.indexOf('full_name')]).toBe('Łukasz, Ünal');
    expect(row[header!.indexOf('notes')]).toBe(notes);
    expect(res.body).toContain('"Budget: ""big"", soon\r\nCall Zoë 👋 after 5\nthanks"');
  });

  it.each(['=', '+', '-', '@', '\t', '\r'])('when an answer starts with %j, then its cell starts with an apostrophe', async (start) => {
    const notes = `${start}HYPERLINK("https://evil.example","x")`;
    const s = await submit(api, { form_id: form.id, answers: { ...noBudgetAnswers(), notes } });
    const res = await download(`/v1/submissions/export?form_id=${form.id}&format=csv`);
    const [header, ...rows] = parseCsv(res.body);
    expect(rows.find((cells) => cells[0] === s.id)![header!.indexOf('notes')]).toBe(`'${notes}`);
  });

  it('when the form changed fields across versions, then the columns are the union of refs, oldest version first', async () => {
    const changing = await createForm(api, demoForm({ name: 'Changing funnel' }));
    const steps = [...changing.steps, { id: 'extra', title: 'Extra', fields: [{ type: 'phone', ref: 'phone', label: 'Phone' }] }];
    const updated = await api.call('patch', `/v1/forms/${changing.id}`).send({ steps });
    expect(updated.status).toBe(200);
    const res = await download(`/v1/submissions/export?form_id=${changing.id}&format=csv`);
    expect(parseCsv(res.body)[0]!.slice(19)).toEqual([
      'full_name',
      'email',
      'utm_source',
      'company_size',
      'has_budget',
      'budget_usd',
      'notes',
      'gdpr',
      'phone',
    ]);
  });

  it('when a submission carries a context, then CSV has it flattened (apart from a hidden field of the same name) and NDJSON as is', async () => {
    const context = {
      user_agent: '=cmd|calc',
      referrer: 'https://www.linkedin.com/',
      landing_url: 'https://acme.example/demo?utm_source=linkedin',
      utm: { source: 'linkedin', medium: 'paid_social', campaign: 'q4, demo' },
    };
    const s = await submit(api, { form_id: form.id, answers: noBudgetAnswers(), hidden: { utm_source: 'newsletter' }, context });
    const csv = await download(`/v1/submissions/export?form_id=${form.id}&format=csv&utm_source=linkedin`);
    const [header, ...rows] = parseCsv(csv.body);
    expect(rows.map((cells) => cells[0])).toEqual([s.id]);
    const cell = (name: string) => rows[0]![header!.indexOf(name)];
    expect(cell('context.user_agent')).toBe(`'=cmd|calc`);
    expect(cell('context.referrer')).toBe('https://www.linkedin.com/');
    expect(cell('context.utm_source')).toBe('linkedin');
    expect(cell('context.utm_campaign')).toBe('q4, demo');
    expect(cell('context.utm_term')).toBe('');
    expect(cell('utm_source')).toBe('newsletter');
    const [line] = lines((await download(`/v1/submissions/export?form_id=${form.id}&utm_source=linkedin`)).body);
    expect(line!.context).toEqual({ ...context, utm: { ...context.utm, term: null, content: null } });
  });

  it('when CSV is asked for without form_id, then 400 invalid_parameters names form_id', async () => {
    const res = await api.call('get', '/v1/submissions/export?format=csv');
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(res.body.details.errors[0].pointer).toBe('/form_id');
  });
});

describe('GET /v1/submissions/export: format negotiation', () => {
  it.each([
    ['text/csv', 'text/csv'],
    ['application/x-ndjson', 'application/x-ndjson'],
    ['*/*', 'application/x-ndjson'],
    ['text/*', 'text/csv'],
    ['text/csv;q=0.5, application/x-ndjson', 'application/x-ndjson'],
  ])('when Accept is %s, then the export is %s', async (accept, type) => {
    const res = await download(`/v1/submissions/export?form_id=${form.id}`, { accept });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(`${type}; charset=utf-8`);
  });

  it('when format is given, then it wins over Accept', async () => {
    const res = await download(`/v1/submissions/export?form_id=${form.id}&format=csv`, { accept: 'application/x-ndjson' });
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const xml = await download(`/v1/submissions/export?form_id=${form.id}&format=ndjson`, { accept: 'application/xml' });
    expect(xml.status).toBe(200);
  });

  it('when Accept allows neither format, then 406 not_acceptable as problem+json', async () => {
    const res = await api.call('get', `/v1/submissions/export?form_id=${form.id}`).set('Accept', 'application/xml');
    expectProblem(res, 406, 'invalid_request', 'not_acceptable');
    expect(res.body.message).toMatch(/text\/csv/);
  });

  it('when format is not csv or ndjson, then 400 invalid_parameters', async () => {
    expectProblem(await api.call('get', '/v1/submissions/export?format=xlsx'), 400, 'validation_error', 'invalid_parameters');
  });

  it('when another method is used, then 405 with Allow: GET (export is not a submission id)', async () => {
    const res = await api.call('delete', '/v1/submissions/export');
    expectProblem(res, 405, 'invalid_request', 'method_not_allowed');
    expect(res.headers.allow).toBe('GET');
  });
});

describe('GET /v1/submissions/export: limits and visibility', () => {
  it('when a download spans many pages, then it costs one request of the rate limit', async () => {
    const before = await api.call('get', '/v1/me');
    const res = await download(`/v1/submissions/export?form_id=${bulk.id}`);
    const after = await api.call('get', '/v1/me');
    expect(lines(res.body)).toHaveLength(bulkIds.length);
    expect(Number(res.headers['x-ratelimit-remaining'])).toBe(Number(before.headers['x-ratelimit-remaining']) - 1);
    expect(Number(after.headers['x-ratelimit-remaining'])).toBe(Number(before.headers['x-ratelimit-remaining']) - 2);
  });

  it('when a test key exports, then only test submissions come back, and a live key never sees them', async () => {
    const testOne = await submit(api, { form_id: form.id, answers: noBudgetAnswers() }, api.workspace.test_admin_key);
    const asTest = lines((await download(`/v1/submissions/export?form_id=${form.id}`, { key: api.workspace.test_admin_key })).body);
    expect(asTest.map((s) => s.id)).toEqual([testOne.id]);
    expect(asTest[0]!.test).toBe(true);
    const asLive = lines((await download('/v1/submissions/export')).body);
    expect(asLive.map((s) => s.id)).not.toContain(testOne.id);
    expect(asLive.every((s) => s.test === false)).toBe(true);
  });

  it('when a form-attached key exports, then only its form is reached, and another form_id is 403', async () => {
    const key = await createKey(api, { environment: 'live', scope: 'read', attachment: { type: 'form', form_id: form.id } });
    const own = lines((await download('/v1/submissions/export', { key: key.secret })).body);
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((s) => s.form_id === form.id)).toBe(true);
    const res = await api.call('get', `/v1/submissions/export?form_id=${bulk.id}`, key.secret);
    expectProblem(res, 403, 'permission_error', 'form_not_attached');
  });
});
