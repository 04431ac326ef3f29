import { beforeAll, describe, expect, it } from 'vitest';
import { type Answers, createForm, type Form, type Submission, submit } from '../support/factories.js';
import { expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { demoForm, testClock } from './submissions-support.js';

const clock = testClock('2026-03-02T09:00:00.000Z');
const api = useWatchedApi({ now: clock.now, rateLimits: generousLimits });

const lead = (fullName: string, email: string, companySize: string, budget: number, notes?: string): Answers => ({
  full_name: fullName,
  email,
  company_size: companySize,
  has_budget: true,
  budget_usd: budget,
  gdpr: true,
  ...(notes === undefined ? {} : { notes }),
});

let form: Form;
let other: Form;
/** Every submission of the workspace, oldest first. */
const seeded: Submission[] = [];

beforeAll(async () => {
  form = await createForm(api, demoForm());
  other = await createForm(api, demoForm({ name: 'Other funnel' }));
  const leads: Array<{ form: Form; answers: Answers; status?: 'partial' }> = [
    { form, answers: lead('Ana Pereira', 'ana@acme.example', '201_plus', 80_000, 'Wants SSO') }, // 65 A
    { form, answers: lead('Kim Lee', 'kim@lee.example', '1_10', 80_000) }, // 40 B
    { form, answers: lead('ZOË ÜNAL', 'zoe@unal.example', '201_plus', 1_000) }, // 25 B
    { form, answers: lead('Tom 100% Okafor', 'tom@brightdesk.example', '11_200', 1_000) }, // 10 C
    { form, answers: lead('Lia Chen', 'lia@chen.example', '11_200', 1_000, 'call after 5') }, // 10 C
    { form, answers: lead('Max_Power', 'max@power.example', '1_10', 1_000) }, // 0 C
    { form, answers: { full_name: 'Pat Partial', email: 'pat@partial.example' }, status: 'partial' },
    { form: other, answers: lead('Kim Other', 'kim@other.example', '201_plus', 80_000) }, // 65 A
  ];
  for (const { form: target, answers, status } of leads) {
    clock.set(new Date(clock.now().getTime() + 60_000).toISOString());
    seeded.push(await submit(api, { form_id: target.id, answers, ...(status ? { status } : {}) }));
  }
});

/** When the n-th seeded submission (1-based) was created: a minute apart from 09:01. */
const seededAt = (n: number) => new Date(Date.parse('2026-03-02T09:00:00.000Z') + n * 60_000).toISOString();

type Sort = '-created_at' | 'created_at' | '-score' | 'score';

/** The seeded submissions that pass `keep`, in the order `sort` names (ties by id in the same direction). */
function expected(keep: (s: Submission) => boolean, sort: Sort = '-created_at'): string[] {
  const descending = sort.startsWith('-');
  const key = (s: Submission) => (sort.endsWith('score') ? s.score : s.created_at);
  return seeded
    .filter(keep)
    .sort((a, b) => {
      const order = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
      return descending ? -order : order;
    })
    .map((s) => s.id);
}

async function ids(query: string): Promise<string[]> {
  const res = await api.call('get', `/v1/submissions?limit=100&${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.map((s: Submission) => s.id);
}

const text = (s: Submission) => [s.answers.full_name, s.answers.email, s.answers.notes].join('\n').toLowerCase();

describe('GET /v1/submissions: filters', () => {
  it('when grade is given once, then only that grade comes back', async () => {
    expect(await ids('grade=B')).toEqual(expected((s) => s.grade === 'B'));
  });

  it('when grade is repeated, then any of the grades matches', async () => {
    expect(await ids('grade=A&grade=C')).toEqual(expected((s) => s.grade === 'A' || s.grade === 'C'));
  });

  it('when max_score is given, alone or with min_score, then the score lies within the bounds', async () => {
    expect(await ids('max_score=10')).toEqual(expected((s) => s.score <= 10));
    expect(await ids('min_score=10&max_score=40')).toEqual(expected((s) => s.score >= 10 && s.score <= 40));
    expect(await ids('min_score=10&max_score=10')).toEqual(expected((s) => s.score === 10));
  });

  it('when max_score is below min_score, then 400 invalid_parameters names max_score', async () => {
    const res = await api.call('get', '/v1/submissions?min_score=10&max_score=5');
    expectProblem(res, 400, 'validation_error', 'invalid_parameters');
    expect(res.body.message).toMatch(/max_score \(5\) is below min_score \(10\)/);
    expect(res.body.details.errors).toEqual([expect.objectContaining({ location: 'query', pointer: '/max_score' })]);
  });

  it('when q is given, then text, email and long text answers match it as a substring, ignoring case (Unicode too)', async () => {
    expect(await ids('q=KIM')).toEqual(expected((s) => text(s).includes('kim')));
    expect(await ids('q=acme.example')).toEqual([seeded[0]!.id]);
    expect(await ids('q=SSO')).toEqual([seeded[0]!.id]);
    expect(await ids(`q=${encodeURIComponent('zoë ünal')}`)).toEqual([seeded[2]!.id]);
  });

  it('when q names a choice value, then it does not match: only text, email and phone answers are searched', async () => {
    expect(await ids('q=201_plus')).toEqual([]);
  });

  it('when q holds % or _, then they match literally, not as wildcards', async () => {
    expect(await ids(`q=${encodeURIComponent('100%')}`)).toEqual([seeded[3]!.id]);
    expect(await ids(`q=${encodeURIComponent('%')}`)).toEqual([seeded[3]!.id]);
    expect(await ids('q=x_p')).toEqual([seeded[5]!.id]);
    expect(await ids('q=a_a')).toEqual([]);
  });

  it('when q is too long or holds a control character, then 400 invalid_parameters', async () => {
    expectProblem(await api.call('get', `/v1/submissions?q=${'a'.repeat(101)}`), 400, 'validation_error', 'invalid_parameters');
    expectProblem(await api.call('get', '/v1/submissions?q=a%0Ab'), 400, 'validation_error', 'invalid_parameters');
    expectProblem(await api.call('get', '/v1/submissions?q='), 400, 'validation_error', 'invalid_parameters');
  });

  it('when updated_gte is given, then only submissions changed since come back, rescored ones included', async () => {
    clock.set('2026-03-05T12:00:00.000Z');
    const rescored = await api.call('post', `/v1/submissions/${seeded[1]!.id}/rescore`);
    expect(rescored.body.updated_at).toBe('2026-03-05T12:00:00.000Z');
    expect(rescored.body.created_at).toBe(seeded[1]!.created_at);
    seeded[1] = rescored.body;
    expect(await ids(`updated_gte=${encodeURIComponent('2026-03-05T12:00:00Z')}`)).toEqual([seeded[1]!.id]);
    expect(await ids(`updated_gte=${encodeURIComponent('2026-03-02T09:03:00Z')}`)).toEqual(
      expected((s) => s.updated_at >= '2026-03-02T09:03:00.000Z'),
    );
  });

  it('when every filter is combined, then all of them hold', async () => {
    const query = `form_id=${form.id}&status=completed&grade=B&grade=C&min_score=5&max_score=30&q=o&created_gte=2026-03-02T09%3A00%3A00Z&created_lt=2026-03-03T00%3A00%3A00Z&updated_gte=2026-03-01T00%3A00%3A00Z&sort=-score`;
    const keep = (s: Submission) =>
      s.form_id === form.id &&
      s.status === 'completed' &&
      ['B', 'C'].includes(s.grade!) &&
      s.score >= 5 &&
      s.score <= 30 &&
      text(s).includes('o');
    const found = await ids(query);
    expect(found).toEqual(expected(keep, '-score'));
    expect(found.length).toBeGreaterThan(1);
  });

  it('when a filter value breaks its schema, then 400 invalid_parameters for each', async () => {
    for (const query of [
      'sort=score_desc',
      'max_score=1.5',
      `grade=${'x'.repeat(51)}`,
      Array.from({ length: 11 }, (_, i) => `grade=g${i}`).join('&'),
      'updated_gte=yesterday',
    ]) {
      expectProblem(await api.call('get', `/v1/submissions?${query}`), 400, 'validation_error', 'invalid_parameters');
    }
  });
});

describe('GET /v1/submissions: sort and cursors', () => {
  const sorts: Sort[] = ['-created_at', 'created_at', '-score', 'score'];

  it.each(sorts)('when sorted by %s, then the first page follows that order with ties broken by id', async (sort) => {
    expect(await ids(`sort=${sort}`)).toEqual(expected(() => true, sort));
  });

  // Bounds on the sort's own key take part in the index range after a cursor; the rest are checks on the way.
  const bounded = {
    query: `min_score=5&max_score=40&created_gte=${encodeURIComponent(seededAt(1))}&created_lt=${encodeURIComponent(seededAt(7))}`,
    keep: (s: Submission) => s.score >= 5 && s.score <= 40 && s.created_at >= seededAt(1) && s.created_at < seededAt(7),
  };
  const cases = sorts.flatMap((sort) => [
    { sort, name: 'every submission', query: '', keep: () => true },
    { sort, name: 'score and date bounds', ...bounded },
  ]);

  it.each(cases)(
    'when sorted by $sort and paged two at a time forwards and backwards ($name), then each comes once, in order',
    async ({ sort, query, keep }) => {
      const all = expected(keep, sort);
      expect(all.length).toBeGreaterThan(2);
      const base = `/v1/submissions?limit=2&sort=${sort}&${query}`;
      const forwards: string[] = [];
      let after: string | undefined;
      for (;;) {
        const res = await api.call('get', `${base}${after ? `&starting_after=${after}` : ''}`);
        forwards.push(...res.body.data.map((s: Submission) => s.id));
        if (!res.body.has_more) break;
        after = forwards.at(-1);
      }
      expect(forwards).toEqual(all);
      const backwards: string[] = [];
      let before = all.at(-1)!;
      backwards.unshift(before);
      for (;;) {
        const res = await api.call('get', `${base}&ending_before=${before}`);
        backwards.unshift(...res.body.data.map((s: Submission) => s.id));
        if (!res.body.has_more) break;
        before = backwards[0]!;
      }
      expect(backwards).toEqual(all);
    },
  );

  it('when a filtered list is paged, then the pages hold only matches in order', async () => {
    const all = expected((s) => s.grade === 'C', '-score');
    const first = await api.call('get', '/v1/submissions?limit=2&sort=-score&grade=C');
    const second = await api.call('get', `/v1/submissions?limit=2&sort=-score&grade=C&starting_after=${first.body.data[1].id}`);
    expect([...first.body.data, ...second.body.data].map((s: Submission) => s.id)).toEqual(all.slice(0, 4));
  });

  it('when the cursor is not in the filtered list, then 400 invalid_cursor', async () => {
    const graded = seeded[0]!; // grade A
    const res = await api.call('get', `/v1/submissions?grade=C&sort=-score&starting_after=${graded.id}`);
    expectProblem(res, 400, 'validation_error', 'invalid_cursor');
    expect(res.body.details.errors[0].pointer).toBe('/starting_after');
    expectProblem(await api.call('get', `/v1/submissions?q=kim&ending_before=${seeded[3]!.id}`), 400, 'validation_error', 'invalid_cursor');
    expectProblem(
      await api.call('get', `/v1/submissions?form_id=${other.id}&starting_after=${seeded[0]!.id}`),
      400,
      'validation_error',
      'invalid_cursor',
    );
  });
});
