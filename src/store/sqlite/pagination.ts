import type Database from 'better-sqlite3';
import { InvalidCursor } from '../errors.js';
import { type KeyBounds, type KeysetPosition, type Page, type PageRequest, withinBound } from '../page.js';
import { allRows, statement } from './statements.js';

export interface KeysetQuery {
  /** Table (or join) holding the key column and `id` under `alias`. */
  from: string;
  alias: string;
  select: string;
  /** Filters that define the list (workspace, environment, filters); the cursor must satisfy them too. */
  where: string;
  params: readonly unknown[];
  page: PageRequest;
  /** The list's order: `column`, then `id`, both in `direction`. Default: newest first (`created_at` DESC). */
  order?: KeysetOrder | undefined;
  /** Filters on the order's own column, kept out of `where` (see `keysetPage`). */
  bounds?: KeyBounds | undefined;
}

export interface KeysetOrder {
  column: string;
  direction: 'ASC' | 'DESC';
}

const newestFirst: KeysetOrder = { column: 'created_at', direction: 'DESC' };

/**
 * Keyset pagination on (key, id), newest first unless the list names another order. The cursor row is looked
 * up inside the same list (so a cursor from another list, workspace or filter is `invalid_cursor`) and its key
 * read there, then the page is a range scan from it: page 10,000 costs what page 1 costs, unlike OFFSET.
 * The row value `(key, id) < (?, ?)` is one index range starting at the cursor itself, even among many rows with
 * the same key (a score shared by a hundred thousand leads); `key <= ? AND (key < ? OR id < ?)` would start at the
 * first row of the cursor's key and skip every tie before it.
 */
export function keysetPage<Row>(db: Database.Database, query: KeysetQuery): Page<Row> {
  const { from, alias, select, where, params, page, bounds = {} } = query;
  const { column, direction } = query.order ?? newestFirst;
  const key = `${alias}.${column}`;
  const id = `${alias}.id`;
  const cursorId = page.startingAfter ?? page.endingBefore;
  const take = page.limit + 1;
  const orderBy = (descending: boolean) => `ORDER BY ${key} ${descending ? 'DESC' : 'ASC'}, ${id} ${descending ? 'DESC' : 'ASC'}`;
  const bound = (side: 'min' | 'max'): Array<[string, unknown]> => {
    const limit = bounds[side];
    if (limit === undefined) return [];
    const operator = side === 'min' ? (limit.inclusive ? '>=' : '>') : limit.inclusive ? '<=' : '<';
    return [[`${key} ${operator} ?`, limit.value]];
  };
  const conditions = (extra: Array<[string, unknown]>) => ({
    sql: [where, ...extra.map(([condition]) => condition)].join(' AND '),
    values: [...params, ...extra.map(([, value]) => value)],
  });
  if (cursorId === undefined && page.after === undefined && page.before === undefined) {
    const list = conditions([...bound('min'), ...bound('max')]);
    const rows = allRows<Row>(
      statement(db, `SELECT ${select} FROM ${from} WHERE ${list.sql} ${orderBy(direction === 'DESC')} LIMIT ?`),
      ...list.values,
      take,
    );
    return { data: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
  }
  const given = page.after ?? page.before;
  const cursor = given ?? lookUpCursor(db, query, key, id, cursorId!, conditions([...bound('min'), ...bound('max')]));
  const forwards = page.after !== undefined || page.startingAfter !== undefined;
  // Walking down the key: forwards in a descending list, backwards in an ascending one.
  const descending = forwards === (direction === 'DESC');
  // A cursor in the list already satisfies the bound on its side; only the far one ends the range. Left in, the
  // planner might scan from the near bound and skip every row before the cursor. A place given by the caller
  // may lie beyond the near bound, and then keeps it.
  const near = descending ? 'max' : 'min';
  const keepNear = given !== undefined && !withinBound(bounds[near], near, cursor.key);
  const after = conditions([
    ...bound(descending ? 'min' : 'max'),
    ...(keepNear ? bound(near) : []),
    [`(${key}, ${id}) ${descending ? '<' : '>'} (?, ?)`, cursor.key],
  ]);
  const rows = allRows<Row>(
    statement(db, `SELECT ${select} FROM ${from} WHERE ${after.sql} ${orderBy(descending)} LIMIT ?`),
    ...after.values,
    cursor.id,
    take,
  );
  const data = rows.slice(0, page.limit);
  return { data: forwards ? data : data.reverse(), hasMore: rows.length > page.limit };
}

/** The cursor row's place, looked up inside the list itself (`list`: its conditions with both bounds). */
function lookUpCursor(
  db: Database.Database,
  query: KeysetQuery,
  key: string,
  id: string,
  cursorId: string,
  list: { sql: string; values: unknown[] },
): KeysetPosition {
  const cursor = statement(db, `SELECT ${key} AS key, ${id} AS id FROM ${query.from} WHERE ${list.sql} AND ${id} = ?`).get(
    ...list.values,
    cursorId,
  ) as KeysetPosition | undefined;
  if (!cursor) throw new InvalidCursor(query.page.startingAfter !== undefined ? 'starting_after' : 'ending_before');
  return cursor;
}
