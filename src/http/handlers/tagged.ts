import { entityTagOf } from '../../etag.js';

/** A resource as a 200 with its `ETag` (src/etag.ts), which a later `If-Match` or `If-None-Match` sends back. */
export function tagged<Resource extends object>(resource: Resource) {
  return { status: 200 as const, body: resource, headers: { ETag: entityTagOf(resource) } };
}
