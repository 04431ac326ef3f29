import { randomFillSync } from 'node:crypto';

export const base62Alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn in blocks: one call to the CSPRNG per block instead of one per identifier.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/**
 * Uniformly random base62 text. Bytes >= 248 are rejected rather than reduced modulo 62, which would
 * make the first characters of the alphabet more likely (used for secrets too, so the bias matters).
 */
function uniformBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += base62Alphabet[byte % 62];
  }
  return out;
}

/**
 * Where identifiers and secrets get their time and their randomness. The system's source (the clock and the CSPRNG)
 * serves every request; `npm run examples:record` swaps in a repeatable one (src/examples/) so the document's
 * examples can be recorded from the server and checked for drift. One object, read per call: no branch on the path.
 */
export interface IdSource {
  /** A new identifier: the prefix, `_`, and 24 base62 characters (see `newId`). */
  id(prefix: IdPrefix): string;
  /** `length` base62 characters for tokens that are neither ids nor secrets. */
  random(length: number): string;
  /** `length` base62 characters of a secret (API keys, signing secrets, OAuth codes and tokens). */
  secret(length: number): string;
}

const systemSource: IdSource = {
  id: (prefix) => `${prefix}_${timeKey(Date.now())}${uniformBase62(16)}`,
  random: uniformBase62,
  secret: uniformBase62,
};
let source: IdSource = systemSource;

/** Makes `next` the source of every id and secret until the returned function restores the previous one. */
export function useIdSource(next: IdSource): () => void {
  const previous = source;
  source = next;
  return () => {
    source = previous;
  };
}

/** Random base62 text that is neither an id nor a secret (OAuth client ids, lock owners). */
export const randomBase62 = (length: number): string => source.random(length);

/** Random base62 text for a secret. */
export const secretBase62 = (length: number): string => source.secret(length);

export type IdPrefix =
  | 'ws'
  | 'pk'
  | 'form'
  | 'fv'
  | 'fld'
  | 'sub'
  | 'key'
  | 'int'
  | 'evt'
  | 'dlv'
  | 'mem'
  | 'inv'
  | 'aud'
  | 'req'
  | 'xfr'
  | 'rsj'
  // People (src/domain/people/): internal, never in an API response.
  | 'acct'
  | 'psk'
  | 'ses'
  | 'mail';

/**
 * Identifiers are a type prefix and 24 base62 characters: the creation time in milliseconds (8 characters, most
 * significant first, so they sort as the times do) and 16 random characters (about 95 bits). Never a sequence
 * number: ids made in the same millisecond differ by their random part, and nothing can be guessed from one id
 * about another.
 *
 * Why the time first: every table keeps its rows' ids in a B-tree index (and events, submissions and the score
 * orders break ties by id). Uniformly random keys put each new entry on a random leaf page, so a transaction
 * rewrites one page per index entry; time-first keys put new entries on the last few leaves, which the rows
 * written together then share. On SQLite that halves the pages a submission writes to the WAL (and the
 * checkpointer copies back), and PostgreSQL's indexes and WAL gain the same way. The time an id reveals is its
 * object's `created_at`, which the API shows anyway.
 */
export const newId = (prefix: IdPrefix): string => source.id(prefix);

/** The 8 base62 characters of `ms` (up to 62^8 ms, the year 8888), in the alphabet's order, which is ASCII's. */
export function timeKey(ms: number): string {
  let rest = Math.max(0, Math.floor(ms));
  let out = '';
  for (let index = 0; index < 8; index++) {
    out = base62Alphabet[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}
