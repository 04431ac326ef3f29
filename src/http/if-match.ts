/**
 * Reads `If-Match` (RFC 9110 section 13.1.1). The validator has checked its syntax against the document's
 * pattern (`*`, or a comma-separated list of entity tags); several header lines arrive joined by commas. Weak tags
 * are dropped here: the comparison is strong, so they never match, and a list of weak tags only fails.
 */
import type { IfMatch } from '../domain/preconditions.js';

const entityTag = /(W\/)?("[^"]*")/g;

/** The tags an `If-Match` or `If-None-Match` header lists (each with whether it is weak), or `*` for any. */
export function entityTagsOf(header: string): '*' | { weak: boolean; tag: string }[] {
  if (header.trim() === '*') return '*';
  return [...header.matchAll(entityTag)].map((match) => ({ weak: match[1] !== undefined, tag: match[2]! }));
}

export function ifMatchOf(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const tags = entityTagsOf(header);
  return tags === '*' ? { any: true } : { tags: tags.filter(({ weak }) => !weak).map(({ tag }) => tag) };
}
