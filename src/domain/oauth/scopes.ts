/**
 * OAuth scopes are the API key scopes (`read`, `read_write`, `admin`); a grant may list several, and a token
 * acts with the highest, because each scope includes the ones below it.
 */
import type { Scope } from '../../contract.js';

/** Ascending power, as the document's Scope enum lists them; `Record<Scope, …>` fails to compile if one is added. */
const rank: Record<Scope, number> = { read: 0, read_write: 1, admin: 2 };

const isScope = (word: string): word is Scope => Object.hasOwn(rank, word);

/** A space-separated scope list (RFC 6749 section 3.3), in ascending power without duplicates; undefined if invalid. */
export function parseScopes(text: string): Scope[] | undefined {
  const words = text.split(' ').filter((word) => word !== '');
  if (words.length === 0 || !words.every(isScope)) return undefined;
  return [...new Set(words)].sort((a, b) => rank[a] - rank[b]);
}

export const highestScope = (scopes: readonly Scope[]): Scope =>
  scopes.reduce((highest, scope) => (rank[scope] > rank[highest] ? scope : highest));

export const scopeList = (): string => Object.keys(rank).join(', ');
