import type Database from 'better-sqlite3';
import { InvalidCursor } from '../errors.js';
import type { Page, PageRequest } from '../page.js';
import { statement } from './statements.js';

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
 * `key <= ?` (or `>=`) drives the index range; the OR only breaks ties among rows with the same key.
 */
export function keysetPage<Row>(db: Database.Database, query: KeysetQuery): Page<Row> {
  const { from, alias, select, where, params, page } = query;
  const { column, direction } = query.order ?? newestFirst;
  const key = `${alias}.${column}`;
  const id = `${alias}.id`;
  const cursorId = page.startingAfter ?? page.endingBefore;
  const take = page.limit + 1;
  const orderBy = (descending: boolean) => `ORDER BY ${key} ${descending ? 'DESC' : 'ASC'}, ${id} ${descending ? 'DESC' : 'ASC'}`;
  if (cursorId === undefined) {
    const rows = statement(db, `SELECT ${select} FROM ${from} WHERE ${where} ${orderBy(direction === 'DESC')} LIMIT ?`).all(
      ...params,
      take,
    ) as Row[];
    return { data: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
  }
  const cursor = statement(db, `SELECT ${key} AS key, ${id} AS id FROM ${from} WHERE ${where} AND ${id} = ?`).get(...params, cursorId) as
    | { key: unknown; id: string }
    | undefined;
  if (!cursor) throw new InvalidCursor(page.startingAfter !== undefined ? 'starting_after' : 'ending_before');
  const forwards = page.startingAfter !== undefined;
  // Walking down the key: forwards in a descending list, backwards in an ascending one.
  const descending = forwards === (direction === 'DESC');
  const [within, beyond] = descending ? ['<=', '<'] : ['>=', '>'];
  const rows = statement(
    db,
    `SELECT ${select} FROM ${from} WHERE ${where} AND ${key} ${within} ? AND (${key} ${beyond} ? OR ${id} ${beyond} ?)
       ${orderBy(descending)} LIMIT ?`,
  ).all(...params, cursor.key, cursor.key, cursor.id, take) as Row[];
  const data = rows.slice(0, page.limit);
  return { data: forwards ? data : data.reverse(), hasMore: rows.length > page.limit };
}
