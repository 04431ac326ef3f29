/**
 * Freezes a value and everything inside it, so a copy shared between callers cannot be changed by one of them.
 * Binary buffers (a key's secret hash) cannot be frozen and are left as they are; nothing writes into them.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
