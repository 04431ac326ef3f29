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
/** Texts of deeply frozen plain values as they are; undefined when a value is not one. */
const ownTexts = new WeakMap<object, string | undefined>();

/** The body as sent: the handler's members, then `request_id`. */
export function withRequestId(body: object, requestId: string): Record<string, unknown> {
  const copy = { ...body, request_id: requestId };
  // An array spread into an object is not an array's text with a member added: only objects are remembered.
  if (Object.isFrozen(body) && !Array.isArray(body) && !Object.hasOwn(body, 'request_id')) {
    Object.defineProperty(copy, source, { value: body });
  }
  return copy;
}

/** The text of a deeply frozen plain value, computed once; undefined for any other value. */
function frozenText(frozen: object): string | undefined {
  let text = ownTexts.get(frozen);
  if (text === undefined && !ownTexts.has(frozen)) {
    text = plainTextOf(frozen);
    ownTexts.set(frozen, text);
  }
  return text;
}

/** The text of a value that is frozen plain data all the way down; undefined for any other value. */
const plainTextOf = (frozen: object): string | undefined => (isDeeplyFrozenData(frozen) ? JSON.stringify(frozen) : undefined);

/** Plain objects and arrays, frozen, all the way down: JSON.stringify of such a value gives the same text forever. */
function isDeeplyFrozenData(value: unknown): boolean {
  if (value === null || typeof value !== 'object')
    return typeof value !== 'function' && typeof value !== 'symbol' && typeof value !== 'bigint';
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
    const own = plainTextOf(frozen);
    text = own === undefined ? undefined : own === '{}' ? `{${member}` : `${own.slice(0, -1)},${member}`;
    texts.set(frozen, text);
  }
  return text?.endsWith(member) ? text : undefined;
}

/**
 * `JSON.stringify(value)` for plain data that holds deeply frozen records (a page of a list, whose envelope is
 * built per request around records the store shares): each record's text is computed once and joined into the
 * rest. Undefined when anything in the value is not plain data whose text this gives exactly as JSON.stringify
 * would (a `toJSON`, a class instance, a hole or an `undefined` in an array, a big integer); the caller serialises
 * it itself.
 *
 * The pieces are joined once, at the end, into one flat string: joining each level on its own copied a page's
 * text once per level, and wrapping a joined text in brackets left a string that its first reader (`endsWith`,
 * a map lookup) copied flat again.
 */
export function composedText(value: unknown): string | undefined {
  const pieces: string[] = [];
  return compose(value, pieces) ? pieces.join('') : undefined;
}

/** Appends the text of `value` to `pieces`; false when `composedText` gives up on it. */
function compose(value: unknown, pieces: string[]): boolean {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      pieces.push(JSON.stringify(value));
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) {
    pieces.push('null');
    return true;
  }
  if (Object.isFrozen(value)) {
    const kept = frozenText(value);
    if (kept !== undefined) {
      pieces.push(kept);
      return true;
    }
  }
  if (!isPlainData(value) || 'toJSON' in value) return false;
  if (Array.isArray(value)) {
    pieces.push('[');
    // Every index, holes included (JSON.stringify writes a hole as null; here it gives up).
    for (let index = 0; index < value.length; index++) {
      if (index > 0) pieces.push(',');
      if (!compose(value[index], pieces)) return false;
    }
    pieces.push(']');
    return true;
  }
  pieces.push('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    // Members JSON.stringify leaves out of an object.
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    pieces.push(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
    first = false;
    if (!compose(member, pieces)) return false;
  }
  pieces.push('}');
  return true;
}

/**
 * Whether a body holds records the store shares (frozen), at its top or as the first item of a list in it: only
 * then is `composedText` worth its walk, which for anything else costs more than JSON.stringify.
 */
export function holdsFrozenRecords(body: object): boolean {
  for (const member of Object.values(body)) {
    const first = Array.isArray(member) ? member[0] : member;
    if (first !== null && typeof first === 'object' && Object.isFrozen(first)) return true;
  }
  return false;
}
