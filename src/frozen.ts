/**
 * Records shared between requests (the store's caches, the parsed form definitions, remembered query checks) are
 * frozen all the way down, so that no reader can change what the next one gets, and so that what is computed from
 * one (its response text, its entity tag, the lookups of its steps) can be kept beside it for as long as it lives.
 *
 * `Frozen<T>` says a value went through `deepFreeze`: the caches take only such values, so handing one a record
 * that nobody froze is a compile error rather than a convention to remember. The brand says nothing about the
 * members' types, which stay those of `T`: the store hands records to domain code typed for plain records (and
 * the PostgreSQL store's are not frozen), so a deeply readonly type would have to be cast away at every store
 * boundary. A write into a frozen record throws a TypeError at run time (modules run in strict mode).
 */
declare const frozenBrand: unique symbol;

/** A value `deepFreeze` froze all the way down; a string, number or other primitive cannot change anyway. */
export type Frozen<T> = T extends object ? T & { readonly [frozenBrand]: true } : T;

/**
 * Freezes a value and everything inside it, and says so in its type. Members that are already frozen are walked
 * too: a frozen object may hold one that is not. Binary buffers (a key's secret hash) cannot be frozen and are left
 * as they are; nothing writes into them. For plain data, which has no cycles.
 */
export function deepFreeze<T>(value: T): Frozen<T> {
  freezeAll(value);
  return value as Frozen<T>;
}

function freezeAll(value: unknown): void {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
  Object.freeze(value);
  for (const member of Object.values(value)) freezeAll(member);
}
