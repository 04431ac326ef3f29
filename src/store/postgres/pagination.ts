import { InvalidCursor } from '../errors.js';
import type { Page, PageRequest } from '../page.js';
import { all, one, type Parameters, type Queryable } from './database.js';

export interface KeysetQuery {
  /** Table (or join) holding `created_at` and `id` columns under `alias`. */
  from: string;
  alias: string;
  select: string;
  /** Filters that define the list (workspace, environment, filters), placeholders from `params`; the cursor must satisfy them too. */
  where: string;
  params: Parameters;
  page: PageRequest;
}

/**
 * Keyset pagination, newest first, on (created_at, id), as in the SQLite store. The cursor row is looked up
 * inside the same list (so a cursor from another list or workspace is `InvalidCursor`), then the page is a
 * range scan from it: page 10,000 costs what page 1 costs, unlike OFFSET. The row comparison
 * `(created_at, id) < (…)` is what PostgreSQL turns into one index range on the (created_at DESC, id DESC) indexes.
 */
export async function keysetPage<Row>(db: Queryable, query: KeysetQuery): Promise<Page<Row>> {
  const { from, alias, select, where, params, page } = query;
  const cursorId = page.startingAfter ?? page.endingBefore;
  const order = (direction: 'ASC' | 'DESC') => `ORDER BY ${alias}.created_at ${direction}, ${alias}.id ${direction}`;
  if (cursorId === undefined) {
    const sql = `SELECT ${select} FROM ${from} WHERE ${where} ${order('DESC')} LIMIT ${params.add(page.limit + 1)}`;
    return pageOf(await all<Row>(db, sql, params.values), page.limit, false);
  }
  const cursorParams = [...params.values, cursorId];
  const cursor = await one<{ created_at: string; id: string }>(
    db,
    `SELECT ${alias}.created_at AS created_at, ${alias}.id AS id FROM ${from} WHERE ${where} AND ${alias}.id = $${cursorParams.length}`,
    cursorParams,
  );
  if (!cursor) throw new InvalidCursor(page.startingAfter !== undefined ? 'starting_after' : 'ending_before');
  const position = `(${params.add(cursor.created_at)}::timestamptz, ${params.add(cursor.id)}::text)`;
  const forwards = page.startingAfter !== undefined;
  const sql = forwards
    ? `SELECT ${select} FROM ${from} WHERE ${where} AND (${alias}.created_at, ${alias}.id) < ${position} ${order('DESC')} LIMIT ${params.add(page.limit + 1)}`
    : `SELECT ${select} FROM ${from} WHERE ${where} AND (${alias}.created_at, ${alias}.id) > ${position} ${order('ASC')} LIMIT ${params.add(page.limit + 1)}`;
  return pageOf(await all<Row>(db, sql, params.values), page.limit, !forwards);
}

function pageOf<Row>(rows: Row[], limit: number, backwards: boolean): Page<Row> {
  const data = rows.slice(0, limit);
  return { data: backwards ? data.reverse() : data, hasMore: rows.length > limit };
}
