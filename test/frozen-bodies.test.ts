import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { deepFreeze } from '../src/frozen.js';
import { bodyTextWithRequestId, composedText, holdsFrozenRecords, withRequestId } from '../src/http/frozen-bodies.js';

const expectedText = (body: object, requestId: string) => JSON.stringify({ ...body, request_id: requestId });

describe('bodies built on frozen records', () => {
  it('when a record is frozen all the way down, then its text is the one JSON.stringify gives, the same string each time', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const record = deepFreeze(structuredClone(value));
        const first = bodyTextWithRequestId(withRequestId(record, 'req'), 'req');
        expect(first).toBe(expectedText(record, 'req'));
        expect(bodyTextWithRequestId(withRequestId(record, 'req'), 'req')).toBe(first);
      }),
      { numRuns: 300 },
    );
  });

  it('when a record is not frozen all the way down, then no text is given and the caller serialises it afresh', () => {
    const shallow = Object.freeze({ inner: { a: 1 } });
    expect(bodyTextWithRequestId(withRequestId(shallow, 'req'), 'req')).toBeUndefined();
    shallow.inner.a = 2;
    expect(bodyTextWithRequestId(withRequestId(shallow, 'req'), 'req')).toBeUndefined();
    expect(bodyTextWithRequestId(withRequestId({ a: 1 }, 'req'), 'req')).toBeUndefined();
    const withMethod = deepFreeze({ at: new Date(0) });
    expect(bodyTextWithRequestId(withRequestId(withMethod, 'req'), 'req')).toBeUndefined();
  });

  it('when a record has its own request_id, or the body is not a copy made here, then no text is given', () => {
    const record = deepFreeze({ request_id: 'old', a: 1 });
    const body = withRequestId(record, 'req');
    expect(body).toEqual({ request_id: 'req', a: 1 });
    expect(bodyTextWithRequestId(body, 'req')).toBeUndefined();
    expect(bodyTextWithRequestId({ ...deepFreeze({ a: 1 }), request_id: 'req' }, 'req')).toBeUndefined();
    // A copy of a copy, with another member, is not the record's text either.
    const copied = withRequestId(deepFreeze({ a: 1 }), 'req');
    expect(bodyTextWithRequestId({ ...copied, b: 2 }, 'req')).toBeUndefined();
    expect(Object.keys(copied)).toEqual(['a', 'request_id']);
  });

  it('when the frozen body is an array, then no text is given (its copy is an object keyed by index)', () => {
    for (const array of [[1, 2], []]) {
      expect(bodyTextWithRequestId(withRequestId(deepFreeze(array), 'req'), 'req')).toBeUndefined();
    }
  });

  it('when the record is empty, then the text is the request id alone', () => {
    expect(bodyTextWithRequestId(withRequestId(Object.freeze({}), 'req'), 'req')).toBe('{"request_id":"req"}');
  });
});

describe('a page of frozen records', () => {
  const page = (records: unknown[]) => ({ object: 'list', data: records, has_more: false, request_id: 'req' });

  it('when plain data holds frozen records, then its text is the one JSON.stringify gives', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.array(fc.jsonValue()), (frozen, loose) => {
        // Frozen and unfrozen records side by side, the frozen ones read twice (the second from their kept text).
        const records = [...frozen.map((value) => deepFreeze(value)), ...loose];
        const body = page([...records, ...records]);
        expect(composedText(body)).toBe(JSON.stringify(body));
      }),
    );
  });

  it('when a frozen record is read again, then its text is the one kept from the first read', () => {
    const record = deepFreeze({ id: 'sub_1', answers: { email: 'a@example.com' } });
    const stringify = vi.spyOn(JSON, 'stringify');
    const serialisedRecord = () => stringify.mock.calls.filter(([value]) => value === record).length;
    try {
      const first = composedText(page([record]));
      expect(serialisedRecord()).toBe(1);
      expect(composedText(page([record]))).toBe(first);
      expect(serialisedRecord()).toBe(1);
    } finally {
      stringify.mockRestore();
    }
    // Its kept text is its own, not a body's with a request id appended (bodyTextWithRequestId keeps those).
    expect(bodyTextWithRequestId(withRequestId(record, 'req'), 'req')).toBe(JSON.stringify({ ...record, request_id: 'req' }));
    expect(composedText(page([record]))).toBe(JSON.stringify(page([record])));
  });

  class Lead {
    id = 'sub_1';
  }
  const notPlain = [
    ['a toJSON', { toJSON: () => 'x' }],
    ['a date', new Date(0)],
    ['a class instance', new Lead()],
    ['a big integer', 1n],
  ] as const;

  it('when anything in it is not plain data, then no text is given and the caller serialises it', () => {
    for (const [what, value] of notPlain) {
      expect(composedText(page([value])), what).toBeUndefined();
      expect(composedText(page([deepFreeze({ inside: value })])), `${what}, frozen`).toBeUndefined();
    }
  });

  it('when a list has a hole or an undefined item, then only a frozen record holding it is given a text, the one JSON.stringify gives it', () => {
    for (const [what, value] of [
      ['a hole', Object.assign(new Array(3), { 0: 1, 2: 3 })],
      ['undefined', [undefined]],
    ] as const) {
      expect(composedText(page([value])), what).toBeUndefined();
      const frozen = page([deepFreeze({ inside: value })]);
      expect(composedText(frozen), `${what}, frozen`).toBe(JSON.stringify(frozen));
    }
    expect(composedText(page([[() => 1]]))).toBeUndefined();
    expect(composedText(page([deepFreeze({ inside: [() => 1] })]))).toBeUndefined();
  });

  it('when an object has members JSON.stringify leaves out, then they are left out here too, frozen or not', () => {
    const loose = { kept: 1, gone: undefined, method: () => 1, symbol: Symbol('s') };
    // Left out first, between and last: the commas are the ones JSON.stringify writes.
    const around = { gone: undefined, kept: 1, method: () => 1, also: 2, symbol: Symbol('s') };
    for (const record of [loose, around, { gone: undefined }]) {
      for (const body of [page([record]), page([deepFreeze({ ...record })])]) expect(composedText(body)).toBe(JSON.stringify(body));
    }
  });

  it('when a body holds frozen records, at its top or first in a list, then it is worth composing; otherwise not', () => {
    const record = deepFreeze({ id: 'sub_1' });
    expect(holdsFrozenRecords(page([record]))).toBe(true);
    expect(holdsFrozenRecords({ form: record })).toBe(true);
    expect(holdsFrozenRecords(page([{ id: 'sub_1' }]))).toBe(false);
    expect(holdsFrozenRecords(page([]))).toBe(false);
    expect(holdsFrozenRecords({ name: Object.freeze('text') })).toBe(false);
  });

  it('when a number is not finite, then it is written as null, as JSON.stringify writes it', () => {
    expect(composedText({ a: Number.NaN, b: [Number.POSITIVE_INFINITY] })).toBe('{"a":null,"b":[null]}');
  });
});
