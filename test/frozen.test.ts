/**
 * Frozen records (src/frozen.ts): `deepFreeze` freezes all the way down, and the caches of shared records take
 * only values it froze, as a type the compiler checks.
 */
import { describe, expect, it } from 'vitest';
import { deepFreeze, type Frozen } from '../src/frozen.js';
import type { RowCache, RowsWithIds } from '../src/store/sqlite/row-cache.js';

describe('deepFreeze', () => {
  it('when a record is frozen, then every object and array inside it is frozen too', () => {
    const record = deepFreeze({ id: 'sub_1', answers: { email: 'a@example.com', tags: ['a', { b: 1 }] } });
    for (const part of [record, record.answers, record.answers.tags, record.answers.tags[1]]) expect(Object.isFrozen(part)).toBe(true);
    expect(() => {
      (record.answers as { email: string }).email = 'changed';
    }).toThrow(TypeError);
  });

  it('when an object is already frozen but holds one that is not, then that one is frozen as well', () => {
    // A shallow freeze is not a deep one: trusting it would hand the caches a record whose inside can change.
    const inside = { score: 1 };
    deepFreeze(Object.freeze({ inside }));
    expect(Object.isFrozen(inside)).toBe(true);
  });

  it('when a record holds a binary buffer, then the buffer is left as it is (it cannot be frozen)', () => {
    const record = deepFreeze({ secretHash: Buffer.from('hash') });
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(record.secretHash)).toBe(false);
  });
});

/**
 * Never called: `tsc --noEmit` (npm run lint) fails when a line marked @ts-expect-error compiles.
 * test/store/frozen-types.test.ts runs the compiler on the same mistake.
 */
function _cachesTakeOnlyFrozenRecords(cache: RowCache<{ id: string }>, rows: RowsWithIds<{ id: string }>): void {
  cache.get('a', () => deepFreeze({ id: 'a' }));
  // @ts-expect-error a record nobody froze
  cache.get('a', () => ({ id: 'a' }));
  // @ts-expect-error frozen on its surface only
  cache.get('a', () => Object.freeze({ id: 'a' }));
  rows(['a'], () => new Map([['a', deepFreeze({ id: 'a' })]]));
  // @ts-expect-error rows nobody froze
  rows(['a'], () => new Map([['a', { id: 'a' }]]));
  const frozen: Frozen<{ id: string }> = deepFreeze({ id: 'a' });
  // A frozen record is still read as its own type.
  const plain: { id: string } = frozen;
  void plain;
}
