import { describe, expect, expectTypeOf, it } from 'vitest';
import { createFormFunnelClient, exportSubmissions, FormFunnelError, type SubmissionListQuery } from '../../src/client/index.js';
import { fakeFetch, problem, REQUEST_ID, recordingSleep } from './fake-transport.js';

const API_KEY = 'svc_test_4eC39HqLyjWDarjtT1zdp7dc';
const id = (n: number) => `sub_${String(n).padStart(24, '0')}`;
const createdAt = (n: number) => new Date(Date.UTC(2026, 10, 2, 14, 0, n)).toISOString();
const line = (n: number) => `${JSON.stringify({ object: 'submission', id: id(n), created_at: createdAt(n), score: 10 * n })}\n`;

/** An NDJSON download of `texts`, chunk by chunk; `breaks` ends it with a connection error instead of cleanly. */
const download =
  (texts: string[], breaks = false) =>
  () => {
    const chunks = [...texts];
    return new Response(
      // Pulled one chunk at a time, so the chunks before a break are read before it.
      new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = chunks.shift();
          if (next !== undefined) controller.enqueue(new TextEncoder().encode(next));
          else if (breaks) controller.error(new TypeError('terminated'));
          else controller.close();
        },
      }),
      { status: 200, headers: { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'X-Request-Id': REQUEST_ID } },
    );
  };

function clientWith(transport: ReturnType<typeof fakeFetch>) {
  return createFormFunnelClient({ apiKey: API_KEY, fetch: transport.fetch, sleep: recordingSleep().sleep, maxRetries: 0 });
}

const queryOf = (url: string) => [...new URL(url).searchParams.entries()];

async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const all: Item[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('exportSubmissions', () => {
  it('when the download arrives in chunks that split lines, then every record comes once, parsed, with the filters sent as NDJSON', async () => {
    const text = line(1) + line(2) + line(3);
    const transport = fakeFetch(download([text.slice(0, 10), text.slice(10, 70), text.slice(70)]));
    const records = await collect(exportSubmissions(clientWith(transport), { form_id: 'form_1', grade: ['hot', 'warm'], sort: '-score' }));
    expect(records.map((r) => r.id)).toEqual([1, 2, 3].map(id));
    expect(queryOf(transport.requests[0]!.url)).toEqual([
      ['form_id', 'form_1'],
      ['grade', 'hot'],
      ['grade', 'warm'],
      ['sort', '-score'],
      ['format', 'ndjson'],
    ]);
  });

  it('when the connection breaks mid-record, then the export resumes after the last complete record', async () => {
    const transport = fakeFetch(download([line(1), line(2), line(3).slice(0, 12)], true), download([line(3), line(4)]));
    const records = await collect(exportSubmissions(clientWith(transport), { sort: 'score' }));
    expect(records.map((r) => r.id)).toEqual([1, 2, 3, 4].map(id));
    const resumed = new URL(transport.requests[1]!.url).searchParams;
    expect(resumed.get('starting_after')).toBe(id(2));
    expect(resumed.get('starting_after_score')).toBe('20');
    expect(resumed.has('starting_after_created_at')).toBe(false);
    expect(resumed.get('sort')).toBe('score');
  });

  it('when a download in the default order breaks, then it resumes from the last record by id and created_at', async () => {
    const transport = fakeFetch(download([line(1), line(2)], true), download([line(3)]));
    const records = await collect(exportSubmissions(clientWith(transport), { form_id: 'form_1' }));
    expect(records.map((r) => r.id)).toEqual([1, 2, 3].map(id));
    const resumed = new URL(transport.requests[1]!.url).searchParams;
    expect([resumed.get('starting_after'), resumed.get('starting_after_created_at')]).toEqual([id(2), createdAt(2)]);
    expect(resumed.has('starting_after_score')).toBe(false);
  });

  it('when the body ends inside a record, then that counts as broken and is resumed too', async () => {
    const transport = fakeFetch(download([line(1), '{"object":"sub']), download([line(2)]));
    expect((await collect(exportSubmissions(clientWith(transport)))).map((r) => r.id)).toEqual([id(1), id(2)]);
  });

  it('when every attempt breaks, then the error is thrown after maxResumes resumes', async () => {
    const transport = fakeFetch(download([line(1)], true));
    await expect(collect(exportSubmissions(clientWith(transport), {}, { maxResumes: 2 }))).rejects.toThrow('terminated');
    expect(transport.requests).toHaveLength(3);
  });

  it('when the API answers with a problem, then a FormFunnelError is thrown', async () => {
    const transport = fakeFetch(problem(406, 'not_acceptable', 'invalid_request'));
    await expect(collect(exportSubmissions(clientWith(transport)))).rejects.toBeInstanceOf(FormFunnelError);
  });

  it('when list filters are written, then they are typed from the contract', () => {
    expectTypeOf<SubmissionListQuery['grade']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<SubmissionListQuery['sort']>().toEqualTypeOf<'-created_at' | 'created_at' | '-score' | 'score' | undefined>();
  });
});
