/**
 * The addresses an erasure finds a submission by (`emailAnswersOf`, src/domain/submissions/erase.ts): what a new
 * submission hands the store's email index, so a person is found by every address given in an email field, and
 * by nothing else that looks like one.
 */
import { describe, expect, it } from 'vitest';
import { emailAnswersOf } from '../../src/domain/submissions/erase.js';
import { email, form, hidden, shortText, step } from './fixtures.js';

describe('emailAnswersOf', () => {
  const definition = form([
    step('contact', shortText('name'), email('work')),
    step('more', hidden('referrer'), email('backup'), email('home')),
  ]);

  it('when email fields of several steps are answered, then each address is found, in the order of the fields', () => {
    const answers = { name: 'Ana', work: 'ana@work.example', home: 'Ana@Home.example' };
    expect(emailAnswersOf(definition, answers)).toEqual(['ana@work.example', 'Ana@Home.example']);
  });

  it('when an address sits in a text or hidden field, or an email field holds no text, then it is not an address to find', () => {
    const answers = { name: 'bo@text.example', referrer: 'bo@hidden.example', work: 42, backup: ['bo@list.example'] };
    expect(emailAnswersOf(definition, answers)).toEqual([]);
  });

  it('when nothing is answered, then there is nothing to find', () => {
    expect(emailAnswersOf(definition, {})).toEqual([]);
  });
});
