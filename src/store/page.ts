/**
 * The keyset page every store's lists take and return. A cursor that names no row of the list is refused
 * with `InvalidCursor` (`./errors.ts`).
 */
export interface PageRequest {
  limit: number;
  startingAfter?: string | undefined;
  endingBefore?: string | undefined;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}
