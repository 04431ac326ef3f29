import { InvalidCursor } from '../errors.js';
import type { Page, PageRequest } from '../page.js';
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

export interface KeyBounds {
  min?: { value: unknown; inclusive: boolean } | undefined;
  max?: { value: unknown; inclusive: boolean } | undefined;
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
  if (cursorId === undefined) {
    const conditions = [where, ...bound(params, 'min'), ...bound(params, 'max')].join(' AND ');
    const sql = `SELECT ${select} FROM ${from} WHERE ${conditions} ${orderBy(direction === 'DESC')} LIMIT ${params.add(page.limit + 1)}`;
    return pageOf(await all<Row>(db, sql, params.values), page.limit, false);
  }
  // The cursor is looked up with its own copy of the parameters; the page's query goes on with `params`.
  const lookup = new Parameters();
  lookup.values.push(...params.values);
  const inList = [where, ...bound(lookup, 'min'), ...bound(lookup, 'max'), `${id} = ${lookup.add(cursorId)}`].join(' AND ');
  const cursor = await one<{ key: unknown; id: string }>(
    db,
    `SELECT ${key} AS key, ${id} AS id FROM ${from} WHERE ${inList}`,
    lookup.values,
  );
  if (!cursor) throw new InvalidCursor(page.startingAfter !== undefined ? 'starting_after' : 'ending_before');
  const forwards = page.startingAfter !== undefined;
  // Walking down the key: forwards in a descending list, backwards in an ascending one.
  const descending = forwards === (direction === 'DESC');
  // The cursor is in the list, so the bound on its side already holds; only the far one ends the range.
  const position = `(${params.add(cursor.key)}::${type}, ${params.add(cursor.id)}::text)`;
  const conditions = [where, ...bound(params, descending ? 'min' : 'max'), `(${key}, ${id}) ${descending ? '<' : '>'} ${position}`].join(
    ' AND ',
  );
  const sql = `SELECT ${select} FROM ${from} WHERE ${conditions} ${orderBy(descending)} LIMIT ${params.add(page.limit + 1)}`;
  return pageOf(await all<Row>(db, sql, params.values), page.limit, !forwards);
}

function pageOf<Row>(rows: Row[], limit: number, backwards: boolean): Page<Row> {
  const data = rows.slice(0, limit);
  return { data: backwards ? data.reverse() : data, hasMore: rows.length > limit };
}
