import { badRequest } from '../../domain/errors.js';
import { InvalidCursor } from '../../store/errors.js';
import type { Page, PageRequest } from '../../store/page.js';
import { defaultPageSize } from '../documented-limits.js';

interface PageQuery {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

/** `starting_after` and `ending_before` are mutually exclusive (a schema cannot say so for parameters). */
export function pageOf(query: PageQuery): PageRequest {
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw badRequest('invalid_parameters', 'Use starting_after or ending_before, not both.', [
      { location: 'query', pointer: '/ending_before', code: 'mutually_exclusive', message: 'cannot be combined with starting_after' },
    ]);
  }
  return { limit: query.limit ?? defaultPageSize, startingAfter: query.starting_after, endingBefore: query.ending_before };
}

/** The list envelope of a page. Every list operation reads its page here. */
export async function listBody<T>(page: Promise<Page<T>>) {
  const { data, hasMore } = await cursorChecked(page);
  return { object: 'list' as const, data, has_more: hasMore };
}

/** The one place that turns a store's `InvalidCursor` into the client's `invalid_cursor` (lists and the export). */
export async function cursorChecked<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (!(error instanceof InvalidCursor)) throw error;
    const name = error.parameter;
    throw badRequest('invalid_cursor', `${name} names an object that is not in this list.`, [
      { location: 'query', pointer: `/${name}`, code: 'not_found', message: 'no such object in this list' },
    ]);
  }
}
