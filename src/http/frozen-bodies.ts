/**
 * Response bodies built on records the store shares between requests. The SQLite store hands out cached records
 * deeply frozen (src/store/sqlite/row-cache.ts); a form read returns one as its body. Such a record cannot change,
 * so its JSON text is computed once per record instead of once per request, and being the same string every time,
 * it is hashed once where the validated-reads memory looks it up.
 *
 * The dispatcher adds `request_id` by copying the body (`withRequestId`), which loses the record's identity; the
 * copy remembers its source here, and `bodyTextWithRequestId` rebuilds the copy's text from the source's.
 */
import { isPlainData } from '../plain-data.js';

/**
 * On a copy made by `withRequestId`, the frozen record it copied: a non-enumerable symbol property, which
 * JSON.stringify, the validator's schema checks and a spread copy all pass over (a copy of the copy with other
 * members must not claim the record's text), and cheaper to set than a WeakMap entry per response.
 */
const source = Symbol('frozen source');
/** Texts of deeply frozen plain records, each with `suffix` as its last member; undefined when a record is not one. */
const texts = new WeakMap<object, string | undefined>();

/** The body as sent: the handler's members, then `request_id`. */
export function withRequestId(body: object, requestId: string): Record<string, unknown> {
  const copy = { ...body, request_id: requestId };
  // An array spread into an object is not an array's text with a member added: only objects are remembered.
  if (Object.isFrozen(body) && !Array.isArray(body) && !Object.hasOwn(body, 'request_id')) {
    Object.defineProperty(copy, source, { value: body });
  }
  return copy;
}

/** Plain objects and arrays, frozen, all the way down: JSON.stringify of such a value gives the same text forever. */
function isDeeplyFrozenData(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function' && typeof value !== 'symbol';
  if (!Object.isFrozen(value) || !isPlainData(value) || 'toJSON' in value) return false;
  return Object.values(value).every(isDeeplyFrozenData);
}

/**
 * The text `JSON.stringify({ ...body, request_id: requestId })` gives, where `body` is a copy `withRequestId`
 * made of a deeply frozen record: the same string object on every call for that record and `requestId`. Undefined
 * for any other body, which the caller serialises itself.
 */
export function bodyTextWithRequestId(body: unknown, requestId: string): string | undefined {
  const record = body !== null && typeof body === 'object' ? (body as Record<symbol, unknown>)[source] : undefined;
  if (record === undefined || !Object.hasOwn(body as object, source)) return undefined;
  const member = `"request_id":${JSON.stringify(requestId)}}`;
  const frozen = record as object;
  let text = texts.get(frozen);
  if (text === undefined && !texts.has(frozen)) {
    const own = isDeeplyFrozenData(frozen) ? JSON.stringify(frozen) : undefined;
    text = own === undefined ? undefined : own === '{}' ? `{${member}` : `${own.slice(0, -1)},${member}`;
    texts.set(frozen, text);
  }
  return text?.endsWith(member) ? text : undefined;
}
