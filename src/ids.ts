import { randomFillSync } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

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
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += alphabet[byte % 62];
  }
  return out;
}

export type IdPrefix = 'ws' | 'form' | 'fv' | 'fld' | 'sub' | 'key' | 'int' | 'evt' | 'dlv' | 'mem' | 'inv' | 'aud' | 'req' | 'xfr' | 'rsj';

/** Identifiers are a type prefix and 24 random base62 characters (about 143 bits): never a sequence. */
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(24)}`;
