import type Database from 'better-sqlite3';
import { InvalidCursor } from '../errors.js';
import type { Page, PageRequest } from '../page.js';
import { statement } from './statements.js';

export interface KeysetQuery {
  /** Table (or join) holding `created_at` and `id` columns under `alias`. */
  from: string;
  alias: string;
  select: string;
  /** Filters that define the list (workspace, environment, filters); the cursor must satisfy them too. */
  where: string;
  params: readonly unknown[];
  page: PageRequest;
}

/**
 * Keyset pagination, newest first, on (created_at, id). The cursor row is looked up inside the same list
 * (so a cursor from another list or workspace is `invalid_cursor`), then the page is a range scan from it:
 * page 10,000 costs what page 1 costs, unlike OFFSET. `created_at <= ?` drives the index range; the OR
 * only breaks ties among rows created in the same millisecond.
 */
export function keysetPage<Row>(db: Database.Database, query: KeysetQuery): Page<Row> {
  const { from, alias, select, where, params, page } = query;
  const cursorId = page.startingAfter ?? page.endingBefore;
  const take = page.limit + 1;
  let rows: Row[];
  if (cursorId === undefined) {
    rows = statement(db, `SELECT ${select} FROM ${from} WHERE ${where} ORDER BY ${alias}.created_at DESC, ${alias}.id DESC LIMIT ?`).all(
      ...params,
      take,
    ) as Row[];
  } else {
    const cursor = statement(
      db,
      `SELECT ${alias}.created_at AS created_at, ${alias}.id AS id FROM ${from} WHERE ${where} AND ${alias}.id = ?`,
    ).get(...params, cursorId) as { created_at: string; id: string } | undefined;
    if (!cursor) throw new InvalidCursor(page.startingAfter !== undefined ? 'starting_after' : 'ending_before');
    if (page.startingAfter !== undefined) {
      rows = statement(
        db,
        `SELECT ${select} FROM ${from} WHERE ${where} AND ${alias}.created_at <= ? AND (${alias}.created_at < ? OR ${alias}.id < ?)
           ORDER BY ${alias}.created_at DESC, ${alias}.id DESC LIMIT ?`,
      ).all(...params, cursor.created_at, cursor.created_at, cursor.id, take) as Row[];
    } else {
      rows = statement(
        db,
        `SELECT ${select} FROM ${from} WHERE ${where} AND ${alias}.created_at >= ? AND (${alias}.created_at > ? OR ${alias}.id > ?)
           ORDER BY ${alias}.created_at ASC, ${alias}.id ASC LIMIT ?`,
      ).all(...params, cursor.created_at, cursor.created_at, cursor.id, take) as Row[];
      const hasMore = rows.length > page.limit;
      return { data: rows.slice(0, page.limit).reverse(), hasMore };
    }
  }
  return { data: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
