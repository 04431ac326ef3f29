import { InvalidCursor } from '../errors.js';
import { type KeyBounds, type KeysetPosition, type Page, type PageRequest, withinBound } from '../page.js';
import { all, one, Parameters, type Queryable } from './database.js';

export interface KeysetQuery {
  /** Table (or join) holding the key column and `id` under `alias`. */
  from: string;
  alias: string;
  select: string;
  /** Filters that define the list (workspace, environment, filters), placeholders from `params`; the cursor must satisfy them too. */
  where: string;
  params: Parameters;
  page: PageRequest;
  /** The list's order: `column` (of SQL type `type`), then `id`, both in `direction`. Default: newest first. */
  order?: KeysetOrder | undefined;
  /** Filters on the order's own column, kept out of `where` (see `keysetPage`). */
  bounds?: KeyBounds | undefined;
}

export interface KeysetOrder {
  column: string;
  type: 'timestamptz' | 'integer';
  direction: 'ASC' | 'DESC';
}

const newestFirst: KeysetOrder = { column: 'created_at', type: 'timestamptz', direction: 'DESC' };

/**
 * Keyset pagination on (key, id), newest first unless the list names another order, as in the SQLite store. The
 * cursor row is looked up inside the same list (so a cursor from another list, workspace or filter is
 * `InvalidCursor`) and its key read there, then the page is a range scan from it: page 10,000 costs what page 1
 * costs, unlike OFFSET. The row comparison `(key, id) < (…)` is what PostgreSQL turns into one index range on
 * the (key DESC, id DESC) indexes, scanned in either direction.
 */
export async function keysetPage<Row>(db: Queryable, query: KeysetQuery): Promise<Page<Row>> {
  const { from, alias, select, where, params, page, bounds = {} } = query;
  const { column, type, direction } = query.order ?? newestFirst;
  const key = `${alias}.${column}`;
  const id = `${alias}.id`;
  const cursorId = page.startingAfter ?? page.endingBefore;
  const orderBy = (descending: boolean) => `ORDER BY ${key} ${descending ? 'DESC' : 'ASC'}, ${id} ${descending ? 'DESC' : 'ASC'}`;
  const bound = (into: Parameters, side: 'min' | 'max'): string[] => {
    const limit = bounds[side];
    if (limit === undefined) return [];
    const operator = side === 'min' ? (limit.inclusive ? '>=' : '>') : limit.inclusive ? '<=' : '<';
    return [`${key} ${operator} ${into.add(limit.value)}::${type}`];
  };
  if (cursorId === undefined && page.after === undefined && page.before === undefined) {
    const conditions = [where, ...bound(params, 'min'), ...bound(params, 'max')].join(' AND ');
    const sql = `SELECT ${select} FROM ${from} WHERE ${conditions} ${orderBy(direction === 'DESC')} LIMIT ${params.add(page.limit + 1)}`;
    return pageOf(await all<Row>(db, sql, params.values), page.limit, false);
  }
  const given = page.after ?? page.before;
  const cursor = given ?? (await lookUpCursor(db, query, key, id, cursorId!, (into) => [...bound(into, 'min'), ...bound(into, 'max')]));
  const forwards = page.after !== undefined || page.startingAfter !== undefined;
  // Walking down the key: forwards in a descending list, backwards in an ascending one.
  const descending = forwards === (direction === 'DESC');
  // A cursor in the list already satisfies the bound on its side; only the far one ends the range. A place given
  // by the caller may lie beyond the near bound, and then keeps it.
  const near = descending ? 'max' : 'min';
  const keepNear = given !== undefined && !withinBound(bounds[near], near, cursor.key);
  const position = `(${params.add(cursor.key)}::${type}, ${params.add(cursor.id)}::text)`;
  const conditions = [
    where,
    ...bound(params, descending ? 'min' : 'max'),
    ...(keepNear ? bound(params, near) : []),
    `(${key}, ${id}) ${descending ? '<' : '>'} ${position}`,
  ].join(' AND ');
  const sql = `SELECT ${select} FROM ${from} WHERE ${conditions} ${orderBy(descending)} LIMIT ${params.add(page.limit + 1)}`;
  return pageOf(await all<Row>(db, sql, params.values), page.limit, !forwards);
}

/** The cursor row's place, looked up inside the list itself (`bounds` adds the list's bounds on the key). */
async function lookUpCursor(
  db: Queryable,
  query: KeysetQuery,
  key: string,
  id: string,
  cursorId: string,
  bounds: (into: Parameters) => string[],
): Promise<KeysetPosition> {
  // Its own copy of the parameters: the page's query goes on with `query.params`.
  const lookup = new Parameters();
  lookup.values.push(...query.params.values);
  const inList = [query.where, ...bounds(lookup), `${id} = ${lookup.add(cursorId)}`].join(' AND ');
  const cursor = await one<KeysetPosition>(db, `SELECT ${key} AS key, ${id} AS id FROM ${query.from} WHERE ${inList}`, lookup.values);
  if (!cursor) throw new InvalidCursor(query.page.startingAfter !== undefined ? 'starting_after' : 'ending_before');
  return cursor;
}

function pageOf<Row>(rows: Row[], limit: number, backwards: boolean): Page<Row> {
  const data = rows.slice(0, limit);
  return { data: backwards ? data.reverse() : data, hasMore: rows.length > limit };
}
