import type { MaybeOptionalInit } from 'openapi-fetch';
import type { FormFunnelClient } from './create-form-funnel-client.js';
import type { paths } from './schemas.js';
import { unwrap } from './unwrap.js';

/** The list envelope every list operation answers with; items are resources with an `id`, the cursor. */
interface ListEnvelope<Item extends { id: string }> {
  object: 'list';
  data: Item[];
  has_more: boolean;
}

type JsonBodyOf200<Operation> = Operation extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;
type ListBodyOf<Path extends keyof paths> = paths[Path] extends { get: infer Operation } ? JsonBodyOf200<Operation> : never;

/** Every path whose GET answers with the list envelope: the operations `paginate` accepts, read from the contract. */
export type ListPath = {
  [Path in keyof paths]: [ListBodyOf<Path>] extends [never] ? never : ListBodyOf<Path> extends ListEnvelope<{ id: string }> ? Path : never;
}[keyof paths];

/** The item type of a list operation, e.g. `ListItem<'/forms'>` is `FormSummary`. */
export type ListItem<Path extends ListPath> = ListBodyOf<Path> extends ListEnvelope<infer Item> ? Item : never;

/** The second argument of `client.GET(path, …)` for that path: path parameters, filters, `limit`, a cursor. */
export type ListInit<Path extends ListPath> = MaybeOptionalInit<paths[Path], 'get'>;

type QueryInit = { params?: { query?: { starting_after?: string; ending_before?: string } & Record<string, unknown> } };

/**
 * Every item of a list, page after page, until `has_more` is false:
 *
 *   for await (const form of paginate(client, '/forms', { params: { query: { limit: 100 } } })) { … }
 *
 * Pages are fetched one at a time as the loop asks for items, so breaking out stops the requests. Forward
 * (the default, or from `starting_after`), each next page starts after the last item received. Given
 * `ending_before`, it walks backwards towards newer items: each page ends before the first item received,
 * and items come nearest-first. An error answer stops the iteration with a thrown FormFunnelError.
 */
export async function* paginate<Path extends ListPath>(
  client: FormFunnelClient,
  path: Path,
  ...init: undefined extends ListInit<Path> ? [init?: ListInit<Path>] : [init: ListInit<Path>]
): AsyncGenerator<ListItem<Path>, void, undefined> {
  const first = (init[0] ?? {}) as QueryInit;
  const query = first.params?.query ?? {};
  const backwards = query.ending_before !== undefined;
  let cursor = backwards ? query.ending_before : query.starting_after;
  for (;;) {
    const pageQuery = { ...query, ...(cursor !== undefined && { [backwards ? 'ending_before' : 'starting_after']: cursor }) };
    // The path is one of ListPath, so this is a GET the contract declares; openapi-fetch cannot check a generic path.
    const get = client.GET as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const page = unwrap(await get(path, { ...first, params: { ...first.params, query: pageQuery } })) as ListEnvelope<ListItem<Path>>;
    const items = backwards ? [...page.data].reverse() : page.data;
    yield* items;
    const last = items.at(-1);
    // An empty page with has_more would repeat the same request forever; no cursor can come from it.
    if (!page.has_more || last === undefined) return;
    cursor = last.id;
  }
}
