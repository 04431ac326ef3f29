import { type FetchResultLike, unwrap } from './unwrap.js';

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
 * again, reapply the change and retry. A read that failed throws its FormFunnelError, as `unwrap` would (so the
 * read's result can be passed on without unwrapping it first). Throws when the read has no `ETag` (not a form or an
 * integration), since an update without the precondition would silently overwrite.
 */
export function ifMatch(read: FetchResultLike): { 'If-Match': string } {
  unwrap(read);
  const tag = entityTagOf(read);
  if (tag === undefined) throw new TypeError('ifMatch: the response has no ETag header (only forms and integrations have one).');
  return { 'If-Match': tag };
}

/**
 * The `If-None-Match` header for a read that needs no body while the resource is unchanged (a form or an
 * integration), from the result of the read whose copy you hold:
 *
 *   const again = await client.GET('/forms/{id}', { params: { path: { id }, header: ifNoneMatch(read) } });
 *   if (!notModified(again)) form = unwrap(again);
 *
 * Throws when the read has no `ETag`, as `ifMatch` does.
 */
export function ifNoneMatch(read: FetchResultLike): { 'If-None-Match': string } {
  const tag = entityTagOf(read);
  if (tag === undefined) throw new TypeError('ifNoneMatch: the response has no ETag header (only forms and integrations have one).');
  return { 'If-None-Match': tag };
}

/** Whether the answer is 304 Not Modified: the copy read before is current (it has no body, so `unwrap` throws). */
export function notModified(result: FetchResultLike): boolean {
  return result.response.status === 304;
}
