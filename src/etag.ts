/**
 * Strong entity tags (RFC 9110) of the resources clients edit concurrently: forms and integrations.
 *
 * The tag is a hash of the representation itself, its keys sorted, rather than a revision counter: it changes
 * exactly when what a GET shows changes, whichever code path made the change (an update, a transfer, the
 * service disabling a failing integration), including paths added later, and a write that changes nothing the
 * client sees (a webhook attempt moving the circuit breaker's counters) does not make the client's tag stale.
 * The store computes the same tag inside its transaction to compare-and-set, so a check and its write are one
 * atomic step. 132 bits of SHA-256 make a collision between two states of one resource out of reach.
 */
import { createHash } from 'node:crypto';
import { isPlainData } from './plain-data.js';

/** Array-index keys (`"0"` to `"4294967294"`), which every JavaScript object lists first, in numeric order. */
const isIndexKey = (key: string) => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;

/** Keys as a sorted copy of the object would list them: its index keys in numeric order, then the rest sorted. */
function canonicalKeyOrder(object: object): string[] {
  const keys = Object.keys(object).sort();
  if (!keys.some(isIndexKey)) return keys;
  const indexKeys = keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b));
  return [...indexKeys, ...keys.filter((key) => !isIndexKey(key))];
}

/**
 * Canonical texts of frozen subtrees: plain objects and arrays that are frozen, as is everything inside them,
 * cannot change, so their text is computed once. A form's definition is one (the store parses each version once
 * and freezes it), shared by every read of that version; only the few fields around it are written each time.
 */
const frozenTexts = new WeakMap<object, string>();
/** Set while writing a subtree when something in it is not frozen (or not plain data): then it is not remembered. */
let sawMutable = false;

/**
 * The text `JSON.stringify(value, replacer)` gives when the replacer hands back a copy of every object with its
 * keys sorted, which is how tags were first defined, so tags clients already hold stay valid. Written out
 * because that replacer costs a copy of every object and V8's slow path; a form's tag is computed on every read.
 * Returns undefined where JSON.stringify leaves the value out (undefined, functions, symbols).
 */
function canonicalJson(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const remembered = frozenTexts.get(value);
  if (remembered !== undefined) return remembered;
  const outerSawMutable = sawMutable;
  sawMutable = !Object.isFrozen(value) || !isPlainData(value);
  let text: string | undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    text = canonicalJson((value as { toJSON: () => unknown }).toJSON());
    sawMutable = true;
  } else if (Array.isArray(value)) {
    text = `[${value.map((item) => canonicalJson(item) ?? 'null').join(',')}]`;
  } else {
    const members: string[] = [];
    for (const key of canonicalKeyOrder(value)) {
      const member = canonicalJson((value as Record<string, unknown>)[key]);
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
    }
    text = `{${members.join(',')}}`;
  }
  if (!sawMutable && text !== undefined) frozenTexts.set(value, text);
  sawMutable ||= outerSawMutable;
  return text;
}

/** Tags of representations whose canonical text is remembered (frozen all the way down): they cannot change either. */
const frozenTags = new WeakMap<object, string>();

/** The quoted strong tag, as the `ETag` header carries it: `"<22 base64url characters>"`. */
export function entityTagOf(representation: object): string {
  const remembered = frozenTags.get(representation);
  if (remembered !== undefined) return remembered;
  const digest = createHash('sha256').update(canonicalJson(representation)!).digest('base64url');
  const tag = `"${digest.slice(0, 22)}"`;
  if (frozenTexts.has(representation)) frozenTags.set(representation, tag);
  return tag;
}
