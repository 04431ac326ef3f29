import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { entityTagOf } from '../src/etag.js';

/** How tags were first defined: JSON.stringify with a replacer that copies every object with its keys sorted. */
function referenceTag(representation: object): string {
  const sortedKeys = (_key: string, value: unknown): unknown =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, (value as Record<string, unknown>)[key]]),
        )
      : value;
  const digest = createHash('sha256').update(JSON.stringify(representation, sortedKeys)).digest('base64url');
  return `"${digest.slice(0, 22)}"`;
}

describe('entityTagOf', () => {
  it('when given any JSON object, then the tag is the one the sorted-copy definition gives', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        expect(entityTagOf(value)).toBe(referenceTag(value));
      }),
      { numRuns: 500 },
    );
  });

  it('when keys look like array indices, are left out or need escaping, then the tag is still the same as before', () => {
    const values: object[] = [
      { b: 1, a: { '10': 'x', '9': 'y', '01': 'z', '4294967295': 1, '4294967294': 2, '-1': 3, z: [undefined, () => 1] } },
      { skipped: undefined, fn: () => 1, sym: Symbol('s'), kept: null, nan: Number.NaN, inf: -Infinity, neg: -0 },
      { 'quo"te': '\u2028\ud800', nested: [{ y: 1, x: [{ d: 1, c: 2 }] }], when: new Date(0), empty: {}, list: [] },
      Object.assign(Object.create(null), { b: 2, a: 1 }),
    ];
    for (const value of values) expect(entityTagOf(value)).toBe(referenceTag(value));
  });

  it('when parts are frozen, then the tag is the same as before, and a changed unfrozen part changes it', () => {
    const deepFreeze = <T>(value: T): T => {
      if (value !== null && typeof value === 'object') {
        Object.freeze(value);
        for (const child of Object.values(value)) deepFreeze(child);
      }
      return value;
    };
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue(), (definition, other) => {
        const frozen = deepFreeze(structuredClone(definition));
        const first = { id: 'frm_1', steps: frozen, other };
        expect(entityTagOf(first)).toBe(referenceTag(first));
        // The second read shares the frozen part; the rest is new.
        const second = { id: 'frm_1', steps: frozen, other: [other] };
        expect(entityTagOf(second)).toBe(referenceTag(second));
      }),
      { numRuns: 300 },
    );
    // Frozen at the top but not inside: the inside may change, so nothing is remembered.
    const shallow = Object.freeze({ inner: { a: 1 } });
    const before = entityTagOf({ shallow });
    shallow.inner.a = 2;
    expect(entityTagOf({ shallow })).not.toBe(before);
    expect(entityTagOf({ shallow })).toBe(referenceTag({ shallow }));
    // The same when the representation itself is the shallowly frozen object, asked for again.
    const top = Object.freeze({ inner: { a: 1 } });
    const topBefore = entityTagOf(top);
    top.inner.a = 2;
    expect(entityTagOf(top)).not.toBe(topBefore);
    expect(entityTagOf(top)).toBe(referenceTag(top));
  });

  it('when a representation is frozen all the way down, then asking again gives the same tag', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const frozen = Object.freeze(structuredClone(value));
        for (const child of Object.values(frozen)) if (child !== null && typeof child === 'object') Object.freeze(child);
        expect([entityTagOf(frozen), entityTagOf(frozen)]).toEqual([referenceTag(value), referenceTag(value)]);
      }),
      { numRuns: 200 },
    );
  });

  it('when two representations differ only in key order, then they have the same tag', () => {
    expect(entityTagOf({ a: 1, b: { c: 2, d: 3 } })).toBe(entityTagOf({ b: { d: 3, c: 2 }, a: 1 }));
  });
});
