import type { FetchResultLike } from './unwrap.js';

/** The `ETag` a read (or an update) answered, or undefined when the response has none. */
export function entityTagOf(result: FetchResultLike): string | undefined {
  return result.response.headers.get('ETag') ?? undefined;
}

/**
 * The `If-Match` header for an update or delete that must not overwrite someone else's change, from the result of
 * the read it is based on:
 *
 *   const read = await client.GET('/forms/{id}', { params: { path: { id } } });
 *   const form = unwrap(read);
 *   await client.PATCH('/forms/{id}', { params: { path: { id }, header: ifMatch(read) }, body: { name: `${form.name} (2)` } });
 *
 * A change made in between gets 412 `precondition_failed` (a FormFunnelError with that `code` from `unwrap`): read
 * again, reapply the change and retry. Throws when the read has no `ETag` (not a form or an integration), since an
 * update without the precondition would silently overwrite.
 */
export function ifMatch(read: FetchResultLike): { 'If-Match': string } {
  const tag = entityTagOf(read);
  if (tag === undefined) throw new TypeError('ifMatch: the response has no ETag header (only forms and integrations have one).');
  return { 'If-Match': tag };
}
