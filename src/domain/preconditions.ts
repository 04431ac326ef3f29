/**
 * `If-Match` preconditions (RFC 9110 section 13.1.1) on the changes clients make concurrently. The HTTP layer
 * parses the header into an `IfMatch`; a use case compares it with the state it read (a fast, friendly refusal),
 * then writes with a compare-and-set on that state's tag, which the store checks inside the write's transaction:
 * a change made between the read and the write is never overwritten.
 */
import { entityTagOf } from '../etag.js';
import { isStoreConflict } from '../store/errors.js';
import { preconditionFailed } from './errors.js';
import { rethrowAsNotFound } from './store-refusals.js';

/** `*` (any current state), or the strong tags the client accepts; weak tags were dropped, as they never match. */
export type IfMatch = { any: true } | { tags: readonly string[] };

export interface TaggedResource {
  resource: string;
  id: string;
  representation: object;
}

/** Throws 412 when the state read is not one the client accepts; returns its tag, to compare-and-set on. */
export function assertIfMatch(ifMatch: IfMatch | undefined, read: TaggedResource): string {
  const tag = entityTagOf(read.representation);
  if (ifMatch && 'tags' in ifMatch && !ifMatch.tags.includes(tag)) throw preconditionFailed(read.resource, read.id);
  return tag;
}

/** Reads before giving up when other writes keep coming between a read and its write (without a tag to hold to). */
const maxAttempts = 5;

/**
 * Runs a read-modify-write whose write compares-and-sets on the state read. When another write came first: with
 * tags in `If-Match`, 412 (the client's state is stale); with `*` or no precondition the change applies to
 * whatever is current, so it is read and made again.
 */
export async function withCompareAndSet<T>(
  ifMatch: IfMatch | undefined,
  stale: { resource: string; id: string },
  readModifyWrite: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await readModifyWrite();
    } catch (error) {
      if (!isStoreConflict(error, 'changed_since_read')) rethrowAsNotFound(error);
      if ((ifMatch && 'tags' in ifMatch) || attempt >= maxAttempts) throw preconditionFailed(stale.resource, stale.id);
    }
  }
}
