import { describe, expect, it } from 'vitest';
import { repeatableIdSource } from '../src/examples/repeatable-ids.js';
import { newId, randomBase62, secretBase62, timeKey, useIdSource } from '../src/ids.js';

describe('newId', () => {
  it('is the prefix and 24 base62 characters, as every id schema in the document requires', () => {
    for (let index = 0; index < 1000; index++) expect(newId('sub')).toMatch(/^sub_[0-9A-Za-z]{24}$/);
  });

  it('starts with the creation time, so later ids sort after earlier ones (the indexes append instead of scattering)', () => {
    const before = timeKey(Date.now());
    const id = newId('evt').slice(4);
    const after = timeKey(Date.now());
    expect(id.slice(0, 8) >= before && id.slice(0, 8) <= after).toBe(true);
  });

  it('keeps 16 random characters, so ids made in the same millisecond still differ', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('req'));
    expect(new Set(ids).size).toBe(ids.length);
    const tails = new Set(ids.map((id) => id.slice(12)));
    expect(tails.size).toBe(ids.length);
  });
});

describe('timeKey', () => {
  it('encodes milliseconds in 8 base62 characters whose ASCII order is the numeric order', () => {
    expect(timeKey(0)).toBe('00000000');
    expect(timeKey(61)).toBe('0000000z');
    expect(timeKey(62)).toBe('00000010');
    expect(timeKey(62 ** 8 - 1)).toBe('zzzzzzzz');
    const times = [0, 1, 61, 62, 3843, 3844, Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, Date.UTC(8000, 0, 1)];
    const keys = times.map(timeKey);
    expect([...keys].sort()).toEqual(keys);
  });
});

describe('randomBase62', () => {
  it('gives the requested length from the base62 alphabet', () => {
    expect(randomBase62(40)).toMatch(/^[0-9A-Za-z]{40}$/);
  });
});

describe('useIdSource', () => {
  it('when a repeatable source is in use, then ids and secrets repeat run after run, and the system source comes back after', () => {
    const run = () => {
      const restore = useIdSource(repeatableIdSource(() => new Date('2026-11-02T09:00:00.000Z')));
      try {
        return [newId('form'), newId('form'), newId('sub'), randomBase62(12), secretBase62(40)];
      } finally {
        restore();
      }
    };
    const first = run();
    expect(run()).toEqual(first);
    expect(first[0]).toMatch(/^form_[0-9A-Za-z]{24}$/);
    expect(first[0]!.slice(5, 13)).toBe(timeKey(Date.parse('2026-11-02T09:00:00.000Z')));
    expect(first[1]).not.toBe(first[0]);
    expect(first[4]).toMatch(/^EXAMPLE[0-9A-Za-z]{29}0001$/);
    expect(newId('form')).not.toBe(first[0]);
    expect(secretBase62(40)).not.toContain('EXAMPLE');
  });

  it('when one kind of id is made more often, then the ids of other kinds stay the same', () => {
    const ids = (extraDeliveries: number) => {
      const restore = useIdSource(repeatableIdSource(() => new Date('2026-11-02T09:00:00.000Z')));
      try {
        for (let index = 0; index < extraDeliveries; index++) newId('dlv');
        return newId('sub');
      } finally {
        restore();
      }
    };
    expect(ids(3)).toBe(ids(0));
  });
});
