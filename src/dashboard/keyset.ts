/**
 * Keyset paging over a list operation: the cursor is the page's boundary id (`starting_after` the last row for the
 * next page, `ending_before` the first for the previous one), and `has_more` says whether more lie in the direction
 * just read. Where the page came from decides what the other direction holds: reached going forward, there is a
 * page before it; reached going back, there is one after it.
 */
export interface Cursor {
  starting_after?: string;
  ending_before?: string;
}

export interface PagerProps {
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
}

export function pagerOf(cursor: Cursor, page: { data: Array<{ id: string }>; has_more: boolean }, go: (to: Cursor) => void): PagerProps {
  const first = page.data[0]?.id;
  const last = page.data.at(-1)?.id;
  const back = cursor.ending_before !== undefined;
  const forward = cursor.starting_after !== undefined;
  return {
    hasPrevious: first !== undefined && (back ? page.has_more : forward),
    hasNext: last !== undefined && (back || page.has_more),
    onPrevious: () => first !== undefined && go({ ending_before: first }),
    onNext: () => last !== undefined && go({ starting_after: last }),
  };
}

/** The cursor a screen keeps in its address (`?after=…` or `?before=…`), so that a reload shows the same page. */
export function cursorOfQuery(query: URLSearchParams): Cursor {
  const after = query.get('after');
  const before = query.get('before');
  return before ? { ending_before: before } : after ? { starting_after: after } : {};
}

/** `query` with the cursor replaced (a filter change passes `{}`: back to the first page). */
export function withCursor(query: URLSearchParams, cursor: Cursor): URLSearchParams {
  const next = new URLSearchParams(query);
  next.delete('after');
  next.delete('before');
  if (cursor.starting_after) next.set('after', cursor.starting_after);
  if (cursor.ending_before) next.set('before', cursor.ending_before);
  return next;
}

/** `query` with one filter set (or removed when empty), back on the first page. */
export function withFilter(query: URLSearchParams, name: string, value: string): URLSearchParams {
  const next = withCursor(query, {});
  if (value) next.set(name, value);
  else next.delete(name);
  return next;
}
