/**
 * `If-None-Match` (RFC 9110 section 13.1.2) on the reads that answer an `ETag` (forms and integrations): a client
 * that already holds the current state gets 304 Not Modified without a body, instead of the same body again. The
 * validator has checked the header's syntax against the document's pattern. The comparison is weak, as the RFC
 * asks for this header: `W/"x"` matches the tag `"x"`; `*` matches any current state.
 */
import { entityTagsOf } from './if-match.js';

export function holdsCurrentState(header: string | undefined, currentTag: string | undefined): boolean {
  if (header === undefined || currentTag === undefined) return false;
  const tags = entityTagsOf(header);
  return tags === '*' || tags.some(({ tag }) => tag === currentTag);
}
