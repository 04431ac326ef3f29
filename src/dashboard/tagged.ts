/**
 * A resource with the `ETag` of the answer it came in (integrations, publishable keys): an update sends it back in
 * `If-Match`, so that someone else's change in between gets 412 instead of being overwritten.
 */
import { entityTagOf } from '../client/if-match.js';
import type { FetchResultLike, UnwrappedData } from '../client/unwrap.js';
import { unwrap } from './api.js';

export interface Tagged<T> {
  object: T;
  etag: string | undefined;
}

export function tagged<Result extends FetchResultLike>(result: Result): Tagged<UnwrappedData<Result>> {
  return { object: unwrap(result), etag: entityTagOf(result) };
}

/** The `If-Match` header of an update based on `read`, or none when the read had no tag. */
export const ifMatchOf = (read: Tagged<unknown>): { 'If-Match'?: string } => (read.etag ? { 'If-Match': read.etag } : {});
