import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/domain/schema-types.js';
import { filterOf, orderOf, searchTextOf } from '../../src/domain/submissions/find.js';

const field = (type: Field['type'], ref: string) => ({ type, ref, label: ref }) as Field;
const definition = {
  steps: [
    { id: 'a', title: 'A', fields: [field('short_text', 'name'), field('email', 'email'), field('number', 'budget')] },
    {
      id: 'b',
      title: 'B',
      fields: [field('phone', 'phone'), field('long_text', 'notes'), field('single_choice', 'size'), field('hidden', 'utm')],
    },
  ],
};

describe('searchTextOf', () => {
  it('when answers are given, then only text, email and phone answers are kept, lower-cased, one per line', () => {
    const text = searchTextOf(definition, {
      name: 'ZOË Ünal',
      email: 'Zoe@Example.COM',
      budget: 5000,
      phone: '+1 555 0100',
      notes: 'Call AFTER 5',
      size: 'Enterprise',
      utm: 'Newsletter',
    });
    expect(text).toBe('zoë ünal\nzoe@example.com\n+1 555 0100\ncall after 5');
  });

  it('when no searchable field is answered, then the text is empty', () => {
    expect(searchTextOf(definition, { budget: 1, size: 'x' })).toBe('');
  });
});

describe('filterOf and orderOf', () => {
  it('when q has capitals or a decomposed accent, then it is folded as the stored text is', () => {
    expect(filterOf({ q: 'ZOE\u0308' }).search).toBe('zoë');
  });

  it('when max_score is below min_score, then it throws invalid_parameters', () => {
    expect(() => filterOf({ min_score: 2, max_score: 1 })).toThrow(/max_score \(1\) is below min_score \(2\)/);
  });

  it('when a sort is named, then its key and direction follow; the default is newest first', () => {
    expect(orderOf()).toEqual({ key: 'created_at', direction: 'desc' });
    expect(orderOf('score')).toEqual({ key: 'score', direction: 'asc' });
    expect(orderOf('-score')).toEqual({ key: 'score', direction: 'desc' });
  });
});
