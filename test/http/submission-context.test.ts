/**
 * Submission context: where a respondent came from (user agent, referrer, landing page, UTM parameters), given
 * on create, returned on every read, filterable by UTM source and broken down in analytics. The respondent's IP
 * address is never stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createForm, type Form, submit } from '../support/factories.js';
import { generousLimits, issuesOf, useWatchedApi } from '../support/http-checks.js';
import { anaAnswers, demoForm, noBudgetAnswers, recordingEvents, testClock } from './submissions-support.js';

const RESPONDENT_ADDRESS = '203.0.113.77';
const clock = testClock('2026-04-01T09:00:00.000Z');
const events = recordingEvents();
// The loopback proxy is trusted, so X-Forwarded-For is the client address the app sees: the test's "respondent".
const api = useWatchedApi({ now: clock.now, events: events.publisher, rateLimits: generousLimits, trustedProxies: ['127.0.0.1'] });
let form: Form;

const fullContext = {
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0',
  referrer: 'https://www.linkedin.com/feed/',
  landing_url: 'https://www.acme.example/demo?utm_source=linkedin&utm_medium=paid_social',
  utm: { source: 'linkedin', medium: 'paid_social', campaign: 'q2_demo', term: 'crm sync', content: 'carousel_b' },
};
const none = {
  user_agent: null,
  referrer: null,
  landing_url: null,
  utm: { source: null, medium: null, campaign: null, term: null, content: null },
};

/** The pointers of a 400's issues. */
const pointersOf = (res: Parameters<typeof issuesOf>[0]): string[] => issuesOf(res).map((issue) => issue.split(' ')[1]!);

const create = (context: unknown, formId = form.id) =>
  api.call('post', '/v1/submissions').set('X-Forwarded-For', RESPONDENT_ADDRESS).send({ form_id: formId, answers: anaAnswers(), context });

beforeAll(async () => {
  form = await createForm(api, demoForm());
});

describe('context on POST /v1/submissions', () => {
  it('when every member is given, then 201 returns it as given, and GET, the list and submission.created carry it too', async () => {
    const res = await create(fullContext);
    expect(res.status).toBe(201);
    expect(res.body.context).toEqual(fullContext);
    expect((await api.call('get', `/v1/submissions/${res.body.id}`)).body.context).toEqual(fullContext);
    const listed = await api.call('get', `/v1/submissions?form_id=${form.id}&limit=1`);
    expect(listed.body.data[0]).toMatchObject({ id: res.body.id, context: fullContext });
    expect(events.published.slice(-2).map((event) => [event.type, event.data.object])).toEqual([
      ['submission.created', expect.objectContaining({ id: res.body.id, context: fullContext })],
      ['submission.completed', expect.objectContaining({ id: res.body.id, context: fullContext })],
    ]);
  });

  it('when context is left out, then every member is null (utm too, member by member)', async () => {
    const created = await submit(api, { form_id: form.id, answers: anaAnswers() });
    expect(created.context).toEqual(none);
  });

  it('when only some members are given, then the others are null', async () => {
    const res = await create({ utm: { source: 'google' }, referrer: 'http://news.example/item?id=1' });
    expect(res.status).toBe(201);
    expect(res.body.context).toEqual({ ...none, referrer: 'http://news.example/item?id=1', utm: { ...none.utm, source: 'google' } });
  });

  it('when each member is at its length cap, then it is accepted', async () => {
    const url = `https://a.example/${'p'.repeat(2048 - 'https://a.example/'.length)}`;
    const res = await create({
      user_agent: 'u'.repeat(512),
      referrer: url,
      landing_url: url,
      utm: { source: 's'.repeat(256), medium: 'm'.repeat(256), campaign: 'c'.repeat(256), term: 't'.repeat(256), content: 'x'.repeat(256) },
    });
    expect(res.status).toBe(201);
    expect(res.body.context.landing_url).toHaveLength(2048);
  });

  it('when members are one character over their caps, then 400 invalid_parameters names each of them', async () => {
    const url = `https://a.example/${'p'.repeat(2049 - 'https://a.example/'.length)}`;
    const res = await create({
      user_agent: 'u'.repeat(513),
      referrer: url,
      landing_url: url,
      utm: { source: 's'.repeat(257), term: 't'.repeat(257) },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_parameters');
    expect(pointersOf(res)).toEqual(
      expect.arrayContaining([
        '/context/user_agent',
        '/context/referrer',
        '/context/landing_url',
        '/context/utm/source',
        '/context/utm/term',
      ]),
    );
  });

  it.each([
    ['javascript:alert(1)'],
    ['ftp://files.example/a'],
    ['/pricing'],
    ['www.acme.example/demo'],
    ['https://'],
    ['https://acme.example/a b'],
    ['https://acme.example/\u0000'],
  ])('when a URL is %j, then 400 invalid_parameters for referrer and landing_url', async (url) => {
    const res = await create({ referrer: url, landing_url: url });
    expect(res.status).toBe(400);
    expect(pointersOf(res)).toEqual(expect.arrayContaining(['/context/referrer', '/context/landing_url']));
  });

  it.each([['\u0007'], ['\n'], ['\r'], ['\u007f'], ['\u0085'], ['\u0000']])(
    'when text holds the control character %j, then 400 invalid_parameters',
    async (control) => {
      const res = await create({ user_agent: `Mozilla${control}5.0`, utm: { source: `link${control}edin` } });
      expect(res.status).toBe(400);
      expect(pointersOf(res)).toEqual(expect.arrayContaining(['/context/user_agent', '/context/utm/source']));
    },
  );

  it('when a member is empty, unknown, or an IP address is offered, then 400 invalid_parameters', async () => {
    const res = await create({ ip: RESPONDENT_ADDRESS, user_agent: '', utm: { source: '', gclid: 'x' } });
    expect(res.status).toBe(400);
    expect(pointersOf(res)).toEqual(
      expect.arrayContaining(['/context/ip', '/context/user_agent', '/context/utm/source', '/context/utm/gclid']),
    );
  });

  it('when a respondent submits through a trusted proxy, then their IP address is stored nowhere, in clear or otherwise', async () => {
    const res = await create(fullContext);
    expect(res.status).toBe(201);
    const [row] = await api.rows('SELECT * FROM submissions WHERE id = ?', res.body.id);
    expect(Object.keys(row!).sort()).not.toEqual(expect.arrayContaining([expect.stringMatching(/ip|address/)]));
    expect(JSON.stringify(row)).not.toContain(RESPONDENT_ADDRESS);
    expect(JSON.stringify(res.body)).not.toContain(RESPONDENT_ADDRESS);
    const stored = await api.rows('SELECT * FROM events');
    expect(JSON.stringify(stored)).not.toContain(RESPONDENT_ADDRESS);
  });
});

describe('GET /v1/submissions?utm_source=', () => {
  let own: Form;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    own = await createForm(api, demoForm());
    let minute = 10;
    for (const [name, source] of [
      ['first', 'linkedin'],
      ['google', 'google'],
      ['second', 'linkedin'],
      ['none', undefined],
      ['cased', 'LinkedIn'],
    ] as const) {
      clock.set(`2026-04-01T09:${minute++}:00.000Z`);
      const body = await create(source === undefined ? {} : { utm: { source } }, own.id);
      ids[name] = body.body.id;
    }
    clock.set('2026-04-01T09:00:00.000Z');
  });

  it('when filtered by a source, then only submissions with exactly that source come back, newest first', async () => {
    const res = await api.call('get', `/v1/submissions?form_id=${own.id}&utm_source=linkedin`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((submission: { id: string }) => submission.id)).toEqual([ids.second, ids.first]);
    const cased = await api.call('get', `/v1/submissions?utm_source=LinkedIn`);
    expect(cased.body.data.map((submission: { id: string }) => submission.id)).toEqual([ids.cased]);
  });

  it('when the filtered list is paged, then the cursor walks only the matching submissions', async () => {
    const first = await api.call('get', '/v1/submissions?utm_source=linkedin&limit=1');
    expect(first.body).toMatchObject({ has_more: true });
    const next = await api.call('get', `/v1/submissions?utm_source=linkedin&limit=100&starting_after=${first.body.data[0].id}`);
    expect(
      next.body.data.every((submission: { context: { utm: { source: string } } }) => submission.context.utm.source === 'linkedin'),
    ).toBe(true);
    expect(next.body.data.map((submission: { id: string }) => submission.id)).not.toContain(first.body.data[0].id);
  });

  it('when the filter is empty or over 256 characters, then 400 invalid_parameters', async () => {
    for (const value of ['', 's'.repeat(257)]) {
      const res = await api.call('get', `/v1/submissions?utm_source=${value}`);
      expect(res.status).toBe(400);
      expect(pointersOf(res)).toContain('/utm_source');
    }
  });

  it('when a test key filters, then live submissions with that source stay out of its list', async () => {
    const res = await api.call('get', '/v1/submissions?utm_source=linkedin', api.workspace.test_admin_key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });
});

describe('utm_sources in GET /v1/analytics', () => {
  it('when submissions come from several sources, then each is counted (started, completed), most started first, no source as null', async () => {
    const own = await createForm(api, demoForm());
    clock.set('2026-04-02T10:00:00.000Z');
    const post = (source: string | undefined, status: 'partial' | 'completed') =>
      api.call('post', '/v1/submissions').send({
        form_id: own.id,
        answers: status === 'completed' ? noBudgetAnswers() : { full_name: 'P', email: 'p@p.example' },
        status,
        ...(source === undefined ? {} : { context: { utm: { source } } }),
      });
    for (const [source, status] of [
      ['newsletter', 'completed'],
      ['newsletter', 'partial'],
      ['newsletter', 'completed'],
      [undefined, 'partial'],
      [undefined, 'completed'],
      ['ads', 'partial'],
    ] as const) {
      expect((await post(source, status)).status).toBe(201);
    }
    const res = await api.call('get', `/v1/analytics?form_id=${own.id}&from=2026-04-02&to=2026-04-02`);
    expect(res.status).toBe(200);
    expect(res.body.utm_sources).toEqual({
      top: [
        { source: 'newsletter', started: 3, completed: 2 },
        { source: null, started: 2, completed: 1 },
        { source: 'ads', started: 1, completed: 0 },
      ],
      other: { sources: 0, started: 0, completed: 0 },
    });
    clock.set('2026-04-01T09:00:00.000Z');
  });

  it('when more than 20 sources have submissions, then the top 20 are listed and the rest summed in other', async () => {
    const own = await createForm(api, demoForm());
    clock.set('2026-04-03T10:00:00.000Z');
    // source_00 gets 3 submissions, source_01 2, the other 23 one each: 25 sources, 28 submissions.
    const sources = Array.from({ length: 25 }, (_, index) => `source_${String(index).padStart(2, '0')}`);
    for (const source of [...sources, 'source_00', 'source_00', 'source_01']) {
      expect((await create({ utm: { source } }, own.id)).status).toBe(201);
    }
    const res = await api.call('get', `/v1/analytics?form_id=${own.id}&from=2026-04-03&to=2026-04-03`);
    const { top, other } = res.body.utm_sources;
    expect(top).toHaveLength(20);
    expect(top.slice(0, 3)).toEqual([
      { source: 'source_00', started: 3, completed: 3 },
      { source: 'source_01', started: 2, completed: 2 },
      { source: 'source_02', started: 1, completed: 1 },
    ]);
    expect(top.at(-1)).toEqual({ source: 'source_19', started: 1, completed: 1 });
    expect(other).toEqual({ sources: 5, started: 5, completed: 5 });
    expect(res.body.submissions.started).toBe(28);

    // A deleted submission leaves its source's figures; a source left with none is no longer listed.
    const [onlyOne] = (await api.call('get', `/v1/submissions?utm_source=source_02`)).body.data;
    expect((await api.call('delete', `/v1/submissions/${onlyOne.id}`)).status).toBe(200);
    const after = (await api.call('get', `/v1/analytics?form_id=${own.id}&from=2026-04-03&to=2026-04-03`)).body.utm_sources;
    expect(after.top.map((entry: { source: string }) => entry.source)).not.toContain('source_02');
    expect(after.other).toEqual({ sources: 4, started: 4, completed: 4 });
    clock.set('2026-04-01T09:00:00.000Z');
  });
});
