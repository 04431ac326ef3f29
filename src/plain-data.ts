/**
 * Plain data: an object literal, a null-prototype object or an array, whose JSON text depends only on its members.
 * A frozen value of this kind (and everything in it) cannot change its text, which is what lets the entity tags and
 * response bodies of shared records be computed once.
 */
export const isPlainData = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null || Array.isArray(value);
};
