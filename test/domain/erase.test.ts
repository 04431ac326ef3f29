/**
 * The addresses an erasure finds a submission by (`emailAnswersOf`, src/domain/submissions/erase.ts): what a new
 * submission hands the store's email index, so a person is found by every address given in an email field, and
 * by nothing else that looks like one. And the `submission.erased` events an erasure sends (`erasedEvents`): one
 * per form, at most `ERASED_IDS_PER_EVENT` ids each, with ids and counts only.
 */
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/access.js';
import { ERASED_IDS_PER_EVENT, emailAnswersOf, erasedEvents } from '../../src/domain/submissions/erase.js';
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

describe('erasedEvents', () => {
  const principal: Principal = {
    authType: 'api_key',
    id: 'key_000000000000000000000001',
    name: 'Admin',
    workspace: { id: 'ws_000000000000000000000001', name: 'Acme', plan: 'business', rateLimits: null },
    environment: 'test',
    scope: 'admin',
    attachment: { type: 'workspace' },
    expiresAt: null,
    credentialId: 'key_000000000000000000000001',
  };
  const at = '2026-11-06T10:00:00.000Z';
  const ids = (count: number, prefix: string) =>
    Array.from({ length: count }, (_, index) => `sub_${prefix}${String(index).padStart(20, '0')}`);

  it('when submissions of two forms were erased, then one event per form, each of its form, with its ids and count', () => {
    const erased = [
      { id: 'sub_a', formId: 'form_1' },
      { id: 'sub_b', formId: 'form_2' },
      { id: 'sub_c', formId: 'form_1' },
    ];
    expect(erasedEvents(principal, erased, at)).toEqual([
      {
        workspaceId: principal.workspace.id,
        environment: 'test',
        type: 'submission.erased',
        formId: 'form_1',
        data: { object: { object: 'erased_submissions', form_id: 'form_1', submission_ids: ['sub_a', 'sub_c'], count: 2, erased_at: at } },
      },
      expect.objectContaining({ formId: 'form_2', data: { object: expect.objectContaining({ submission_ids: ['sub_b'], count: 1 }) } }),
    ]);
  });

  it('when one form lost more submissions than an event lists, then several events carry them all, each with the total', () => {
    const all = ids(2 * ERASED_IDS_PER_EVENT + 1, 'big');
    const events = erasedEvents(
      principal,
      all.map((id) => ({ id, formId: 'form_1' })),
      at,
    );
    expect(events.map((event) => (event.data.object as { submission_ids: string[] }).submission_ids.length)).toEqual([
      ERASED_IDS_PER_EVENT,
      ERASED_IDS_PER_EVENT,
      1,
    ]);
    expect(events.flatMap((event) => (event.data.object as { submission_ids: string[] }).submission_ids)).toEqual(all);
    expect(events.every((event) => (event.data.object as { count: number }).count === all.length)).toBe(true);
  });

  for (const [pages, size] of [
    [1, 'exactly as many'],
    [2, 'exactly twice as many'],
  ] as const) {
    it(`when a form lost ${size} submissions as an event lists, then ${pages} full event(s) and no empty one`, () => {
      const all = ids(pages * ERASED_IDS_PER_EVENT, `page${pages}`);
      const events = erasedEvents(
        principal,
        all.map((id) => ({ id, formId: 'form_1' })),
        at,
      );
      const listed = events.map((event) => (event.data.object as { submission_ids: string[] }).submission_ids);
      expect(listed.map((submissionIds) => submissionIds.length)).toEqual(Array(pages).fill(ERASED_IDS_PER_EVENT));
      expect(listed.flat()).toEqual(all);
      expect(events.map((event) => (event.data.object as { count: number }).count)).toEqual(Array(pages).fill(all.length));
    });
  }

  it('when nothing was erased, then no event', () => {
    expect(erasedEvents(principal, [], at)).toEqual([]);
  });
});
