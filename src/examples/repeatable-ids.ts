import { createHash } from 'node:crypto';
import { base62Alphabet, type IdSource, timeKey } from '../ids.js';

/** `length` base62 characters drawn from SHA-256 of `text` (and of `text` with a counter, past the first digest). */
function hashedBase62(text: string, length: number): string {
  let out = '';
  for (let block = 0; out.length < length; block++) {
    for (const byte of createHash('sha256').update(`${text}#${block}`).digest()) {
      if (byte < 248 && out.length < length) out += base62Alphabet[byte % 62];
    }
  }
  return out;
}

/**
 * An id source that gives the same ids on every run, whatever the store: an id is its prefix, the recording clock's
 * time (as the server's ids are) and base62 text hashed from the prefix, that time and how many such ids came before
 * it in that millisecond. So one store making an id the other does not (a delivery row, a version) shifts no other
 * id. Secrets are obviously fake yet valid for their patterns: `EXAMPLE…` and a four-digit number, which their hints
 * (`…0003`) show.
 */
export function repeatableIdSource(clock: () => Date, seed = 'form-funnel examples'): IdSource {
  const made = new Map<string, number>();
  let draws = 0;
  let secrets = 0;
  return {
    id(prefix) {
      const at = clock().getTime();
      const key = `${prefix}:${at}`;
      const index = made.get(key) ?? 0;
      made.set(key, index + 1);
      return `${prefix}_${timeKey(at)}${hashedBase62(`${seed}:${key}:${index}`, 16)}`;
    },
    random: (length) => hashedBase62(`${seed}:random:${draws++}`, length),
    secret(length) {
      const number = String(++secrets).padStart(4, '0');
      return 'EXAMPLEnotAsecret'.repeat(Math.ceil(length / 17)).slice(0, length - number.length) + number;
    },
  };
}
