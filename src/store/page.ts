/**
 * The keyset page every store's lists take and return. A cursor that names no row of the list is refused
 * with `InvalidCursor` (`./errors.ts`).
 */
export interface PageRequest {
  limit: number;
  startingAfter?: string | undefined;
  endingBefore?: string | undefined;
  /**
   * Continues after this place in the order, forwards, without looking a row up: the place stays valid when the
   * row it was read from has since been deleted or has left the list. Not combined with the two cursors.
   */
  after?: KeysetPosition | undefined;
  /** Continues before this place, backwards, as `after` does forwards (a search's windows towards `ending_before`). */
  before?: KeysetPosition | undefined;
}

/** A place in a list's order: the order's key (`created_at`, `score`) and the `id` of the row it was read from. */
export interface KeysetPosition {
  key: string | number;
  id: string;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

/** Filters on a list's order column (its key), which a keyset page applies as a range of the order's index. */
export interface KeyBounds {
  min?: KeyBound | undefined;
  max?: KeyBound | undefined;
}

export interface KeyBound {
  value: unknown;
  inclusive: boolean;
}

/** Whether a key satisfies one bound of the list (keys of one column compare alike in SQL and here). */
export function withinBound(limit: KeyBound | undefined, side: 'min' | 'max', value: string | number): boolean {
  if (limit === undefined) return true;
  const bound = limit.value as string | number;
  if (side === 'min') return limit.inclusive ? value >= bound : value > bound;
  return limit.inclusive ? value <= bound : value < bound;
}
