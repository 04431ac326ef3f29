/**
 * `q` reads the list in windows and stops after a cap of rows (src/store/search-scan.ts). The window and cap are
 * made small here (5 and 20) so a few dozen submissions show every case: a rare text beyond the cap, short pages
 * that the next page continues without a gap, backwards paging, and the export, which has no cap.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { createForm, type Form, type Submission, submit } from '../support/factories.js';
import { expectProblem, generousLimits, useWatchedApi } from '../support/http-checks.js';
import { demoForm, noBudgetAnswers } from './submissions-support.js';

const api = useWatchedApi({ rateLimits: generousLimits, searchScan: { window: 5, cap: 20 } });

type Sort = '-created_at' | 'created_at' | '-score' | 'score';
const sorts: Sort[] = ['-created_at', 'created_at', '-score', 'score'];

/** A stored row and the search text it was given. */
type Seeded = { submission: Submission; text: string };
let spread: Form;
let rare: Form;
const spreadRows: Seeded[] = [];
const rareRows: Seeded[] = [];

async function seed(form: Form, template: Submission, count: number, text: (index: number) => string, into: Seeded[]) {
  const start = Date.parse(template.created_at);
  for (let index = 0; index < count; index++) {
    const at = new Date(start + (index + 1) * 1_000).toISOString();
    // Scores repeat (ties are broken by id), in an order unrelated to time.
    const submission = { ...template, id: newId('sub'), form_id: form.id, score: ((index * 7) % 5) * 10, created_at: at, updated_at: at };
    await api.store.submissions.insert({
      submission,
      workspaceId: api.workspace.workspace_id,
      environment: 'live',
      searchText: text(index),
    });
    into.push({ submission, text: text(index) });
  }
}

beforeAll(async () => {
  const source = await createForm(api, demoForm({ name: 'Template funnel' }));
  const template = await submit(api, { form_id: source.id, answers: noBudgetAnswers() });
  spread = await createForm(api, demoForm({ name: 'Spread funnel' }));
  rare = await createForm(api, demoForm({ name: 'Rare funnel' }));
  // 41 of 60 match; the 19 that do not are consecutive in time, fewer than the cap, so no page can fail.
  await seed(spread, template, 60, (index) => (index >= 20 && index < 39 ? 'plain\nlead' : `needle ${index}\nlead`), spreadRows);
  // Only the oldest of 30 matches: 29 rows newer than it, more than the cap.
  await seed(rare, template, 30, (index) => (index === 0 ? 'unicorn inc' : 'plain'), rareRows);
});

/** The unbounded answer: the rows whose text holds `q`, in the order `sort` names (ties by id alike). */
function expected(rows: Seeded[], q: string, sort: Sort): string[] {
  const descending = sort.startsWith('-');
  const key = (s: Submission) => (sort.endsWith('score') ? s.score : s.created_at);
  return rows
    .filter((row) => row.text.includes(q))
    .map((row) => row.submission)
    .sort((a, b) => {
      const order = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : 1;
      return descending ? -order : order;
    })
    .map((s) => s.id);
}

async function page(query: string) {
  const res = await api.call('get', `/v1/submissions?${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ids: (res.body.data as Submission[]).map((s) => s.id), hasMore: res.body.has_more as boolean };
}

describe('GET /v1/submissions?q=…: a bounded scan', () => {
  it('when q matches only beyond the cap, then 422 search_too_broad names q', async () => {
    const res = await api.call('get', `/v1/submissions?form_id=${rare.id}&q=unicorn`);
    expectProblem(res, 422, 'validation_error', 'search_too_broad');
    expect(res.body.message).toContain('20 submissions');
    expect(res.body.details.errors).toEqual([expect.objectContaining({ location: 'query', pointer: '/q', code: 'too_broad' })]);
  });

  it('when the cap ends a scan after a match, then the page holds the matches so far with has_more, and the next page goes on from there', async () => {
    const [unicorn] = expected(rareRows, 'unicorn', 'created_at');
    expect(await page(`form_id=${rare.id}&q=unicorn&sort=created_at`)).toEqual({ ids: [unicorn], hasMore: true });
    const next = await api.call('get', `/v1/submissions?form_id=${rare.id}&q=unicorn&sort=created_at&starting_after=${unicorn}`);
    expectProblem(next, 422, 'validation_error', 'search_too_broad');
  });

  it('when a narrowing filter keeps the rare match within the cap, then it is found', async () => {
    const oldest = rareRows[0]!.submission;
    const until = new Date(Date.parse(oldest.created_at) + 5_000).toISOString();
    expect(await page(`form_id=${rare.id}&q=unicorn&created_lt=${encodeURIComponent(until)}`)).toEqual({
      ids: [oldest.id],
      hasMore: false,
    });
  });

  for (const sort of sorts) {
    it(`when matches are spread over many windows, then paging forwards by ${sort} returns every match once, in order`, async () => {
      const ids: string[] = [];
      let pages = 0;
      let cutShort = 0;
      let cursor = '';
      for (;;) {
        const got = await page(`form_id=${spread.id}&q=needle&sort=${sort}&limit=10${cursor}`);
        ids.push(...got.ids);
        pages++;
        if (!got.hasMore) break;
        if (got.ids.length < 10) cutShort++;
        cursor = `&starting_after=${got.ids.at(-1)}`;
        expect(pages).toBeLessThan(20);
      }
      expect(ids).toEqual(expected(spreadRows, 'needle', sort));
      // In time order the 19 rows without a match sit together: the page that meets them is cut short by the cap.
      if (sort.endsWith('created_at')) expect(cutShort).toBeGreaterThan(0);
    });

    it(`when paging backwards by ${sort} with ending_before, then every match before the cursor comes once, in order`, async () => {
      const all = expected(spreadRows, 'needle', sort);
      const pages: string[][] = [];
      let cursor = all.at(-1)!;
      for (;;) {
        const got = await page(`form_id=${spread.id}&q=needle&sort=${sort}&limit=10&ending_before=${cursor}`);
        pages.unshift(got.ids);
        if (!got.hasMore) break;
        cursor = got.ids[0]!;
        expect(pages.length).toBeLessThan(20);
      }
      expect(pages.flat()).toEqual(all.slice(0, -1));
    });
  }
});

describe('GET /v1/submissions/export?q=…: no cap', () => {
  const ndjsonIds = async (query: string) => {
    const res = await api
      .call('get', `/v1/submissions/export?${query}`)
      .set('Accept', 'application/x-ndjson')
      .buffer(true)
      .parse((stream, done) => {
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => {
          text += chunk;
        });
        stream.on('end', () => done(null, text));
      });
    expect(res.status).toBe(200);
    return (res.body as string)
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as Submission).id);
  };

  it('when q matches only beyond the list cap, then the export still reads on and writes it', async () => {
    expect(await ndjsonIds(`form_id=${rare.id}&q=unicorn`)).toEqual([rareRows[0]!.submission.id]);
  });

  it('when matches are spread over many windows, then the export writes each once, in order', async () => {
    for (const sort of sorts)
      expect(await ndjsonIds(`form_id=${spread.id}&q=needle&sort=${sort}`)).toEqual(expected(spreadRows, 'needle', sort));
  });
});
