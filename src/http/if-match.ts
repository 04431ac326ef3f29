/**
 * Reads `If-Match` (RFC 9110 section 13.1.1). The validator has checked its syntax against the document's
 * pattern (`*`, or a comma-separated list of entity tags); several header lines arrive joined by commas. Weak tags
 * are dropped here: the comparison is strong, so they never match, and a list of weak tags only fails.
 */
import type { IfMatch } from '../domain/preconditions.js';

const entityTag = /(W\/)?("[^"]*")/g;

export function ifMatchOf(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return { any: true };
  return { tags: [...header.matchAll(entityTag)].filter((match) => match[1] === undefined).map((match) => match[2]!) };
}
