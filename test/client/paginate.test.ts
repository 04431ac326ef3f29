import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createFormFunnelClient,
  FormFunnelError,
  type FormSummary,
  type FormVersionSummary,
  type ListPath,
  paginate,
} from '../../src/client/index.js';
import { fakeFetch, json, problem, REQUEST_ID, recordingSleep } from './fake-transport.js';

const API_KEY = 'svc_test_4eC39HqLyjWDarjtT1zdp7dc';
const id = (n: number) => `form_${String(n).padStart(24, '0')}`;

/** A list page of `ids` as the API sends it. */
const page = (ids: number[], hasMore: boolean) => () =>
  json(200, { object: 'list', data: ids.map((n) => ({ object: 'form', id: id(n) })), has_more: hasMore, request_id: REQUEST_ID });

function clientWith(transport: ReturnType<typeof fakeFetch>) {
  return createFormFunnelClient({ apiKey: API_KEY, fetch: transport.fetch, sleep: recordingSleep().sleep, maxRetries: 0 });
}

const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const all: Item[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('paginate', () => {
  it('when a list spans three pages, then every item comes once, in order, each page starting after the last id with the same filters', async () => {
    const transport = fakeFetch(page([9, 8], true), page([7, 6], true), page([5], false));
    const forms = await collect(paginate(clientWith(transport), '/forms', { params: { query: { limit: 2, folder_id: 'fld_1' } } }));
    expect(forms.map((form) => form.id)).toEqual([9, 8, 7, 6, 5].map(id));
    expect(transport.requests.map((request) => queryOf(request.url))).toEqual([
      { limit: '2', folder_id: 'fld_1' },
      { limit: '2', folder_id: 'fld_1', starting_after: id(8) },
      { limit: '2', folder_id: 'fld_1', starting_after: id(6) },
    ]);
  });

  it('when no options are given, then the first request has no query and the last page ends the loop', async () => {
    const transport = fakeFetch(page([1], false));
    const forms = await collect(paginate(clientWith(transport), '/forms'));
    expect(forms.map((form) => form.id)).toEqual([id(1)]);
    expect(transport.requests.map((request) => new URL(request.url).search)).toEqual(['']);
  });

  it('when the caller breaks out of the loop, then no further page is requested', async () => {
    const transport = fakeFetch(page([9, 8], true), page([7, 6], true));
    for await (const form of paginate(clientWith(transport), '/forms', { params: { query: { limit: 2 } } })) {
      if (form.id === id(8)) break;
    }
    expect(transport.requests).toHaveLength(1);
  });

  it('when starting from ending_before, then it walks towards newer items, nearest first, each page ending before the newest so far', async () => {
    // Pages come newest first, as the API sends them; the walk goes 4, 5, 6, 7, 8.
    const transport = fakeFetch(page([5, 4], true), page([7, 6], true), page([8], false));
    const forms = await collect(paginate(clientWith(transport), '/forms', { params: { query: { limit: 2, ending_before: id(3) } } }));
    expect(forms.map((form) => form.id)).toEqual([4, 5, 6, 7, 8].map(id));
    expect(transport.requests.map((request) => queryOf(request.url).ending_before)).toEqual([id(3), id(5), id(7)]);
    expect(transport.requests.every((request) => !new URL(request.url).searchParams.has('starting_after'))).toBe(true);
  });

  it('when a later page answers with an error, then the items before it arrive and the loop throws a FormFunnelError', async () => {
    const transport = fakeFetch(page([9, 8], true), problem(400, 'invalid_cursor', 'validation_error'));
    const seen: string[] = [];
    const thrown = await (async () => {
      for await (const form of paginate(clientWith(transport), '/forms', { params: { query: { limit: 2 } } })) seen.push(form.id);
    })().catch((error: unknown) => error);
    expect(seen).toEqual([id(9), id(8)]);
    expect(thrown).toBeInstanceOf(FormFunnelError);
    expect(thrown).toMatchObject({ status: 400, code: 'invalid_cursor', requestId: REQUEST_ID });
  });

  it('when a page is empty but says has_more, then the loop ends instead of asking for the same page forever', async () => {
    const transport = fakeFetch(page([], true), page([1], false));
    expect(await collect(paginate(clientWith(transport), '/forms'))).toEqual([]);
    expect(transport.requests).toHaveLength(1);
  });

  it('when a list has path parameters, then they are sent on every page', async () => {
    const transport = fakeFetch(page([2], true), page([1], false));
    await collect(paginate(clientWith(transport), '/forms/{id}/versions', { params: { path: { id: id(0) } } }));
    expect(transport.requests.map((request) => new URL(request.url).pathname)).toEqual([
      `/v1/forms/${id(0)}/versions`,
      `/v1/forms/${id(0)}/versions`,
    ]);
  });

  it('when used in TypeScript, then only list operations are accepted and the item type is inferred from the contract', () => {
    const client = clientWith(fakeFetch(page([], false)));
    expectTypeOf(paginate(client, '/forms')).toEqualTypeOf<AsyncGenerator<FormSummary, void, undefined>>();
    expectTypeOf(paginate(client, '/forms/{id}/versions', { params: { path: { id: 'form_x' } } })).toEqualTypeOf<
      AsyncGenerator<FormVersionSummary, void, undefined>
    >();
    expectTypeOf<'/forms'>().toExtend<ListPath>();
    expectTypeOf<'/me'>().not.toExtend<ListPath>();
    expectTypeOf<'/forms/{id}'>().not.toExtend<ListPath>();
    // @ts-expect-error `/me` answers with one object, not a list.
    void paginate(client, '/me');
    // @ts-expect-error the versions list needs the form id.
    void paginate(client, '/forms/{id}/versions');
    // @ts-expect-error `cursor` is not a query parameter of listForms.
    void paginate(client, '/forms', { params: { query: { cursor: 'x' } } });
  });
});
